/**
 * An in-memory tuple index: forward (`object#relation` -> users, plain and usersets apart) and
 * reverse (`type#relation@user` -> object ids). It is the TupleReader of every store and the
 * overlay for contextual tuples.
 */
import type { CompiledModel } from './compiled-model.js';
import { DirectUsers } from './direct-users.js';
import type { KeptFrontiers } from './frontier.js';
import { KeptReach, type UserReach } from './kept-reach.js';
import type { TupleReader } from './tuple-reader.js';
import type { Tuple } from './types.js';
import { UsersetHeights } from './userset-heights.js';

/**
 * The reverse index: by object type, then relation, then user, the ids of the objects holding
 * that tuple. Nested rather than keyed by one `type#relation@user` string: the evaluator asks
 * with the model's own type and relation strings and the request's user, whose hashes V8 keeps
 * on the strings, so a lookup builds, flattens and hashes no new key (that concatenation was a
 * quarter of an uncached check's time at 1M tuples).
 */
type Reverse = Map<string, Map<string, Map<string, Set<string>>>>;

function reverseAdd(reverse: Reverse, type: string, relation: string, user: string, id: string): void {
  let byRelation = reverse.get(type);
  if (!byRelation) reverse.set(type, (byRelation = new Map()));
  let byUser = byRelation.get(relation);
  if (!byUser) byRelation.set(relation, (byUser = new Map()));
  let ids = byUser.get(user);
  if (!ids) byUser.set(user, (ids = new Set()));
  ids.add(id);
}

function reverseRemove(reverse: Reverse, type: string, relation: string, user: string, id: string): void {
  const byRelation = reverse.get(type);
  const byUser = byRelation?.get(relation);
  const ids = byUser?.get(user);
  if (!byRelation || !byUser || !ids || !ids.delete(id) || ids.size > 0) return;
  byUser.delete(user);
  if (byUser.size > 0) return;
  byRelation.delete(relation);
  if (byRelation.size === 0) reverse.delete(type);
}

/**
 * The tuples whose object is one `type:id`, by relation. The resolver reaches it once per object
 * and reads every relation it needs from it; parsed views remember it (`ObjectRef.tuples`), so a
 * hop to a parent or a userset's object needs no lookup in the big map. `live` turns false when
 * the index drops it (its last tuple deleted, or a reload): a view then looks the object up again.
 */
export class ObjectTuples {
  readonly relations = new Map<string, DirectUsers<Set<string>>>();
  live = true;
  /** What this object's parents grant, by relation plan (frontier.ts); one field, set only on objects some check reached as a parent. */
  frontiers: KeptFrontiers | undefined;
}

/** Something naming an object, with room to remember its tuples (direct-users.ts views). */
export interface ObjectRef {
  object: string;
  tuples?: ObjectTuples | undefined;
}

export class TupleIndex implements TupleReader {
  /**
   * By object, then relation, both kinds of users in one entry: a check asks several relations
   * of the same object (computed ones, the direct step, the tupleset), and one probe of a big
   * map is most of what a lookup costs.
   */
  private readonly objects = new Map<string, ObjectTuples>();
  private readonly reverse: Reverse = new Map();
  /** One string per relation name, so the per-object maps share their keys (compared in cache). */
  private readonly names = new Map<string, string>();
  private count = 0;
  /** Changes so far (add, remove, clear): the clock of the change marks below. */
  private changes = 1;
  /** By `type#relation`: the change that last touched a tuple of it (what frontiers depend on). */
  private readonly lastChange = new Map<string, number>();
  /** The last change of a tuple whose user is a userset (userset heights, so every frontier), or a clear. */
  private lastUsersetChange = 1;
  /** `frontierEpoch`'s last answer, for this model as of this many changes. */
  private epochModel: CompiledModel | undefined;
  private epochAt = 0;
  private epochValue = 0;
  /** Cached userset heights (userset-heights.ts); dropped when a userset tuple changes. */
  private heights: UsersetHeights | undefined;
  /** The resolver's walks up from checked users, kept between checks (kept-reach.ts). */
  private readonly reaches = new KeptReach();

  get size(): number {
    return this.count;
  }

  add(t: Tuple): boolean {
    const i = t.object.indexOf(':');
    let tuples = this.objects.get(t.object);
    if (!tuples) this.objects.set(t.object, (tuples = new ObjectTuples()));
    let users = tuples.relations.get(t.relation);
    if (!users) {
      let name = this.names.get(t.relation);
      if (name === undefined) this.names.set(t.relation, (name = t.relation));
      tuples.relations.set(name, (users = new DirectUsers<Set<string>>(undefined, undefined)));
    }
    const isSet = t.user.includes('#');
    const set = isSet ? (users.sets ??= new Set()) : (users.plain ??= new Set());
    if (set.has(t.user)) return false;
    set.add(t.user);
    users.changed(isSet);
    const typeRelation = `${t.object.slice(0, i)}#${t.relation}`;
    this.changed(typeRelation, isSet);
    this.forgetReaches(t.user, isSet);
    if (isSet) this.heights = undefined;
    reverseAdd(this.reverse, t.object.slice(0, i), t.relation, t.user, t.object.slice(i + 1));
    this.count++;
    return true;
  }

  remove(t: Tuple): boolean {
    const i = t.object.indexOf(':');
    const tuples = this.objects.get(t.object);
    const users = tuples?.relations.get(t.relation);
    const isSet = t.user.includes('#');
    const set = isSet ? users?.sets : users?.plain;
    if (!tuples || !users || !set || !set.delete(t.user)) return false;
    users.changed(isSet);
    const typeRelation = `${t.object.slice(0, i)}#${t.relation}`;
    this.changed(typeRelation, isSet);
    this.forgetReaches(t.user, isSet);
    if (set.size === 0) {
      if (isSet) users.sets = undefined;
      else users.plain = undefined;
      if (!users.plain && !users.sets) tuples.relations.delete(t.relation);
      if (tuples.relations.size === 0) {
        this.objects.delete(t.object);
        tuples.live = false;
      }
    }
    if (isSet) this.heights = undefined;
    reverseRemove(this.reverse, t.object.slice(0, i), t.relation, t.user, t.object.slice(i + 1));
    this.count--;
    return true;
  }

  has(t: Tuple): boolean {
    const users = this.objects.get(t.object)?.relations.get(t.relation);
    return (t.user.includes('#') ? users?.sets : users?.plain)?.has(t.user) ?? false;
  }

  clear(): void {
    for (const tuples of this.objects.values()) tuples.live = false;
    this.objects.clear();
    this.reverse.clear();
    this.count = 0;
    this.lastUsersetChange = ++this.changes;
    this.heights = undefined;
    this.reaches.forgetAll();
  }

  /** What a tuple of `user` changes in the kept walks (kept-reach.ts): that user's, or every one for a userset or a wildcard. */
  private forgetReaches(user: string, userset: boolean): void {
    if (userset || user.endsWith(':*')) this.reaches.forgetAll();
    else this.reaches.forgetUser(user);
  }

  /** The walks up from `user` kept for `model` with walks capped at `cap` (kept-reach.ts); the resolver fills it. */
  reachOf(model: CompiledModel, cap: number, user: string): UserReach {
    return this.reaches.forUser(model, cap, user);
  }

  /** Marks a change to a tuple of `typeRelation` (one whose user is a userset when `userset`). */
  private changed(typeRelation: string, userset: boolean): void {
    const at = ++this.changes;
    this.lastChange.set(typeRelation, at);
    if (userset) this.lastUsersetChange = at;
  }

  /**
   * The last change that can have altered a frontier built for `model` (frontier.ts): a tuple of
   * a relation `model.frontierReads` names, or any tuple whose user is a userset (the userset
   * heights a frontier counts). A frontier built at this value or later is current. Other changes
   * (a plain user joining a group, a document's own tuples) leave every frontier as it was.
   */
  frontierEpoch(model: CompiledModel): number {
    if (this.epochModel === model && this.epochAt === this.changes) return this.epochValue;
    let value = this.lastUsersetChange;
    for (const key of model.frontierReads) value = Math.max(value, this.lastChange.get(key) ?? 0);
    this.epochModel = model;
    this.epochAt = this.changes;
    this.epochValue = value;
    return value;
  }

  /** The userset heights for `model` over the current tuples (built lazily, kept until a userset tuple changes). */
  usersetHeights(model: CompiledModel, limit: number): UsersetHeights {
    if (!this.heights || this.heights.model !== model) this.heights = new UsersetHeights(model, this, limit);
    return this.heights;
  }

  /** `objectRelation` is `type:id#relation` (ids and relations never contain '#'). */
  private entry(objectRelation: string): DirectUsers<Set<string>> | undefined {
    const h = objectRelation.lastIndexOf('#');
    return this.objects.get(objectRelation.slice(0, h))?.relations.get(objectRelation.slice(h + 1));
  }

  directUsers(objectRelation: string): ReadonlySet<string> | undefined {
    return this.entry(objectRelation)?.plain;
  }

  usersetUsers(objectRelation: string): ReadonlySet<string> | undefined {
    return this.entry(objectRelation)?.sets;
  }

  /** Every relation's users of `object` (one probe), with their parsed views: what the resolver reads. */
  tuplesOf(object: string): ObjectTuples | undefined {
    return this.objects.get(object);
  }

  /** The tuples of the object `ref` names, remembered in `ref` while they stay in the index. */
  tuplesAt(ref: ObjectRef): ObjectTuples | undefined {
    const known = ref.tuples;
    if (known !== undefined && known.live) return known;
    return (ref.tuples = this.objects.get(ref.object));
  }

  objectIds(type: string, relation: string, user: string): ReadonlySet<string> | undefined {
    return this.reverse.get(type)?.get(relation)?.get(user);
  }
}

function merged(
  a: ReadonlySet<string> | undefined,
  b: ReadonlySet<string> | undefined,
): ReadonlySet<string> | undefined {
  if (!b) return a;
  if (!a) return b;
  return new Set([...a, ...b]);
}

/** The store's reader with a request's contextual tuples on top. */
export class OverlayReader implements TupleReader {
  constructor(
    private readonly base: TupleReader,
    private readonly extra: TupleIndex,
  ) {}

  static of(base: TupleReader, tuples: readonly Tuple[]): TupleReader {
    if (tuples.length === 0) return base;
    const extra = new TupleIndex();
    for (const t of tuples) extra.add(t);
    return new OverlayReader(base, extra);
  }

  directUsers(key: string): ReadonlySet<string> | undefined {
    return merged(this.base.directUsers(key), this.extra.directUsers(key));
  }

  usersetUsers(key: string): ReadonlySet<string> | undefined {
    return merged(this.base.usersetUsers(key), this.extra.usersetUsers(key));
  }

  objectIds(type: string, relation: string, user: string): ReadonlySet<string> | undefined {
    return merged(this.base.objectIds(type, relation, user), this.extra.objectIds(type, relation, user));
  }
}
