/**
 * Whether a model is stratified: no relation depends on itself through the subtracted side of a
 * `but not`. In a stratified model every question has one answer whatever else was asked first
 * (cycles among the positive parts answer false, the least fixed point), so the resolver may
 * remember answers across the checks of a request. With a cycle through a subtraction the
 * answers of two questions can contradict each other when each is asked alone (`a: [user] but
 * not b`, `b: x`, `x: a or y`: asked alone, each breaks the cycle at itself), and a check then
 * gets the answer it would get alone only from a memory of its own (resolver.ts).
 */
import type { AuthorizationModel, Rewrite } from './types.js';

type Node = string; // `type#relation`

interface Edge {
  to: Node;
  negative: boolean;
}

/** The relations `rw` (on `type`) reads, each marked when read under a subtraction. */
function edgesOf(model: AuthorizationModel, type: string, rw: Rewrite, negative: boolean, out: Edge[]): void {
  switch (rw.kind) {
    case 'this':
      return;
    case 'computed':
      out.push({ to: `${type}#${rw.relation}`, negative });
      return;
    case 'ttu': {
      out.push({ to: `${type}#${rw.tupleset}`, negative });
      for (const d of model.types.get(type)?.relations.get(rw.tupleset)?.directTypes ?? []) {
        if (!d.relation && !d.wildcard) out.push({ to: `${d.type}#${rw.computed}`, negative });
      }
      return;
    }
    case 'union':
    case 'intersection':
      for (const c of rw.children) edgesOf(model, type, c, negative, out);
      return;
    case 'exclusion':
      edgesOf(model, type, rw.base, negative, out);
      edgesOf(model, type, rw.subtract, true, out);
      return;
  }
}

export function isStratified(model: AuthorizationModel): boolean {
  const graph = new Map<Node, Edge[]>();
  for (const t of model.types.values()) {
    for (const r of t.relations.values()) {
      const edges: Edge[] = [];
      // A userset in a direct restriction (`[group#member]`) is read too.
      for (const d of r.directTypes) if (d.relation) edges.push({ to: `${d.type}#${d.relation}`, negative: false });
      edgesOf(model, t.name, r.rewrite, false, edges);
      graph.set(`${t.name}#${r.name}`, edges);
    }
  }
  const reaches = (from: Node, target: Node): boolean => {
    const seen = new Set<Node>([from]);
    const stack = [from];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node === target) return true;
      for (const e of graph.get(node) ?? []) {
        if (!seen.has(e.to)) {
          seen.add(e.to);
          stack.push(e.to);
        }
      }
    }
    return false;
  };
  for (const [from, edges] of graph) {
    for (const e of edges) if (e.negative && reaches(e.to, from)) return false;
  }
  return true;
}
