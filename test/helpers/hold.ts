/**
 * Races made deterministic: the next call of a service method runs, then is held open until the
 * test releases it, so another request can land in exactly that gap.
 */
export function holdNext<T extends object, K extends keyof T>(
  target: T,
  method: K,
): { reached: Promise<void>; release: () => void } {
  const original = target[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  let release!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const entered = new Promise<void>((r) => (reached = r));
  (target as Record<K, unknown>)[method] = async (...args: unknown[]) => {
    (target as Record<K, unknown>)[method] = original;
    const result = await original.apply(target, args);
    reached();
    await gate;
    return result;
  };
  return { reached: entered, release };
}
