/**
 * The FGA bench data set: users, nested groups, a folder tree with `viewer from parent`, and
 * documents with `but not blocked`, scaled to about `size` tuples. `user:lister` can view
 * exactly 1000 documents (see below), for the list_permissions measurement.
 */
import type { Tuple } from '../../plugins/fga/engine/types.js';

export const BENCH_MODEL = `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
type folder
  relations
    define parent: [folder]
    define viewer: [user, group#member] or viewer from parent
type document
  relations
    define parent: [folder]
    define blocked: [user]
    define viewer: [user, group#member] or viewer from parent
    define can_view: viewer but not blocked
`;

export interface Dataset {
  tuples: Tuple[];
  users: number;
  documents: number;
}

export function generate(size: number): Dataset {
  const tuples: Tuple[] = [];
  const users = Math.max(100, Math.floor(size / 10));
  const groups = Math.max(10, Math.floor(size / 100));
  const folders = Math.max(10, Math.floor(size / 50));
  const rnd = prng(42);
  for (let g = 0; g < groups; g++) {
    for (let k = 0; k < 5; k++) tuples.push({ user: `user:u${rnd(users)}`, relation: 'member', object: `group:g${g}` });
    if (g > 0)
      tuples.push({ user: `group:g${g}#member`, relation: 'member', object: `group:g${Math.floor((g - 1) / 4)}` });
  }
  for (let f = 0; f < folders; f++) {
    if (f > 0) tuples.push({ user: `folder:f${Math.floor((f - 1) / 4)}`, relation: 'parent', object: `folder:f${f}` });
    tuples.push({ user: `group:g${rnd(groups)}#member`, relation: 'viewer', object: `folder:f${f}` });
  }
  // user:lister can view exactly 1000 documents, the way real access arrives: as a member of a
  // group nested in the group that views folder:list, through three folder levels, and 100 more
  // documents there reach it as viewer but block it (can_view fails), so a list walks candidates
  // that the check turns down.
  tuples.push({ user: 'user:lister', relation: 'member', object: 'group:list-inner' });
  tuples.push({ user: 'group:list-inner#member', relation: 'member', object: 'group:list-outer' });
  tuples.push({ user: 'group:list-outer#member', relation: 'viewer', object: 'folder:list' });
  tuples.push({ user: 'folder:list', relation: 'parent', object: 'folder:list-sub' });
  tuples.push({ user: 'folder:list-sub', relation: 'parent', object: 'folder:list-subsub' });
  const listFolders = ['folder:list', 'folder:list-sub', 'folder:list-subsub'];
  for (let d = 0; d < 1100; d++) {
    tuples.push({ user: listFolders[d % 3], relation: 'parent', object: `document:l${d}` });
    if (d >= 1000) tuples.push({ user: 'user:lister', relation: 'blocked', object: `document:l${d}` });
  }
  let documents = 0;
  while (tuples.length < size) {
    const d = documents++;
    tuples.push({ user: `folder:f${rnd(folders)}`, relation: 'parent', object: `document:d${d}` });
    tuples.push({ user: `user:u${rnd(users)}`, relation: 'viewer', object: `document:d${d}` });
    if (d % 10 === 0) tuples.push({ user: `user:u${rnd(users)}`, relation: 'blocked', object: `document:d${d}` });
  }
  // Random picks may repeat a tuple; a store holds each tuple once.
  const seen = new Set<string>();
  const unique = tuples.filter((t) => {
    const k = `${t.object}#${t.relation}@${t.user}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return { tuples: unique, users, documents };
}

/** mulberry32: a small seeded generator whose low bits are uniform (an LCG's are not). */
export function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}
