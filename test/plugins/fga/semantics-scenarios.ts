/**
 * Scenarios written from OpenFGA's documentation (modeling guides: direct access, concentric
 * relationships, usersets and groups, public access with wildcards, parent-child objects,
 * intersection and exclusion, tuple-to-userset over parents of several types). Each lists the
 * model, the tuples and, for a grid of users and objects, exactly which checks are allowed;
 * everything else in the grid must be denied. The grid also drives list objects and list users.
 */
import type { Tuple } from '../../../plugins/fga/engine/types.js';

export interface Scenario {
  name: string;
  dsl: string;
  tuples: string[];
  /** Users to ask about (plain users, and usersets as checked users). */
  users: string[];
  /** Objects with the relations to ask about. */
  objects: [string, string[]][];
  /** `user relation object` triples that are allowed. */
  allowed: string[];
  /** List users answers that differ from "allowed plain users" (wildcards), keyed `object#relation`. */
  listUsers?: Record<string, string[]>;
  /** Extra list users checks with userset filters: [object, relation, filter, expected]. */
  listUsersets?: [string, string, string, string[]][];
}

/** `user relation object` -> Tuple. */
export function tuple(s: string): Tuple {
  const [user, relation, object] = s.split(' ');
  return { user, relation, object };
}

export const scenarios: Scenario[] = [
  {
    name: 'direct access, concentric relationships and public access',
    dsl: `model
  schema 1.1
type user
type document
  relations
    define owner: [user]
    define editor: [user] or owner
    define viewer: [user, user:*] or editor
    define commenter: [user]
`,
    tuples: [
      'user:anne owner document:1',
      'user:beth editor document:1',
      'user:carl viewer document:2',
      'user:* viewer document:3',
      'user:dana commenter document:2',
    ],
    users: ['user:anne', 'user:beth', 'user:carl', 'user:dana', 'user:erin'],
    objects: [
      ['document:1', ['owner', 'editor', 'viewer', 'commenter']],
      ['document:2', ['owner', 'editor', 'viewer', 'commenter']],
      ['document:3', ['owner', 'editor', 'viewer', 'commenter']],
    ],
    allowed: [
      'user:anne owner document:1',
      'user:anne editor document:1',
      'user:anne viewer document:1',
      'user:beth editor document:1',
      'user:beth viewer document:1',
      'user:carl viewer document:2',
      'user:dana commenter document:2',
      'user:anne viewer document:3',
      'user:beth viewer document:3',
      'user:carl viewer document:3',
      'user:dana viewer document:3',
      'user:erin viewer document:3',
    ],
    listUsers: { 'document:3#viewer': ['user:*'] },
  },
  {
    name: 'usersets: groups, nested groups, usersets as the checked user',
    dsl: `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
type document
  relations
    define viewer: [user, group#member]
`,
    tuples: [
      'user:anne member group:eng',
      'group:eng#member member group:all',
      'user:beth member group:all',
      'group:all#member viewer document:1',
      'user:carl viewer document:2',
      'group:eng#member viewer document:2',
    ],
    users: ['user:anne', 'user:beth', 'user:carl', 'user:dana', 'group:eng#member', 'group:all#member'],
    objects: [
      ['group:eng', ['member']],
      ['group:all', ['member']],
      ['document:1', ['viewer']],
      ['document:2', ['viewer']],
    ],
    allowed: [
      'user:anne member group:eng',
      'group:eng#member member group:eng',
      'user:anne member group:all',
      'user:beth member group:all',
      'group:eng#member member group:all',
      'group:all#member member group:all',
      'user:anne viewer document:1',
      'user:beth viewer document:1',
      'group:all#member viewer document:1',
      'group:eng#member viewer document:1',
      'user:anne viewer document:2',
      'user:carl viewer document:2',
      'group:eng#member viewer document:2',
    ],
    listUsersets: [
      ['document:1', 'viewer', 'group#member', ['group:all#member', 'group:eng#member']],
      ['document:2', 'viewer', 'group#member', ['group:eng#member']],
      // The object's own userset defines itself (OpenFGA's list users test
      // `userset_defines_itself`), as `group:all#member member group:all` is allowed above.
      ['group:all', 'member', 'group#member', ['group:all#member', 'group:eng#member']],
    ],
  },
  {
    name: 'parent-child objects (viewer from parent) and exclusion (but not blocked)',
    dsl: `model
  schema 1.1
type user
type folder
  relations
    define parent: [folder]
    define owner: [user]
    define viewer: [user] or owner or viewer from parent
type document
  relations
    define parent: [folder]
    define viewer: [user] or viewer from parent
    define blocked: [user]
    define can_view: viewer but not blocked
`,
    tuples: [
      'user:anne owner folder:root',
      'folder:root parent folder:a',
      'folder:a parent folder:b',
      'user:beth viewer folder:a',
      'folder:b parent document:1',
      'folder:root parent document:2',
      'user:carl viewer document:2',
      'user:anne blocked document:2',
      'user:dana viewer document:1',
    ],
    users: ['user:anne', 'user:beth', 'user:carl', 'user:dana', 'user:erin'],
    objects: [
      ['folder:root', ['owner', 'viewer']],
      ['folder:a', ['owner', 'viewer']],
      ['folder:b', ['viewer']],
      ['document:1', ['viewer', 'blocked', 'can_view']],
      ['document:2', ['viewer', 'blocked', 'can_view']],
    ],
    allowed: [
      'user:anne owner folder:root',
      'user:anne viewer folder:root',
      'user:anne viewer folder:a',
      'user:beth viewer folder:a',
      'user:anne viewer folder:b',
      'user:beth viewer folder:b',
      'user:anne viewer document:1',
      'user:beth viewer document:1',
      'user:dana viewer document:1',
      'user:anne can_view document:1',
      'user:beth can_view document:1',
      'user:dana can_view document:1',
      'user:anne viewer document:2',
      'user:carl viewer document:2',
      'user:anne blocked document:2',
      'user:carl can_view document:2',
    ],
  },
  {
    name: 'intersection, exclusion and tuple-to-userset over parents of two types',
    dsl: `model
  schema 1.1
type user
type org
  relations
    define member: [user]
type team
  relations
    define lead: [user]
type repo
  relations
    define owner: [org, team]
    define writer: [user]
    define admin: [user] or member from owner
    define can_delete: writer and admin
    define banned: [user]
    define can_push: writer but not banned
`,
    tuples: [
      'org:acme owner repo:1',
      'team:t1 owner repo:1',
      'user:anne lead team:t1',
      'user:anne member org:acme',
      'user:beth member org:acme',
      'user:anne writer repo:1',
      'user:carl writer repo:1',
      'user:carl banned repo:1',
      'team:t1 owner repo:2',
      'user:dana admin repo:2',
      'user:dana writer repo:2',
    ],
    users: ['user:anne', 'user:beth', 'user:carl', 'user:dana', 'user:erin'],
    objects: [
      ['repo:1', ['writer', 'admin', 'can_delete', 'banned', 'can_push']],
      ['repo:2', ['writer', 'admin', 'can_delete', 'banned', 'can_push']],
      ['org:acme', ['member']],
      ['team:t1', ['lead']],
    ],
    allowed: [
      'user:anne admin repo:1',
      'user:beth admin repo:1',
      'user:anne writer repo:1',
      'user:carl writer repo:1',
      'user:anne can_delete repo:1',
      'user:carl banned repo:1',
      'user:anne can_push repo:1',
      'user:dana admin repo:2',
      'user:dana writer repo:2',
      'user:dana can_delete repo:2',
      'user:dana can_push repo:2',
      'user:anne member org:acme',
      'user:beth member org:acme',
      'user:anne lead team:t1',
    ],
  },
  {
    name: 'public access with exclusions and wildcard intersection',
    dsl: `model
  schema 1.1
type user
type employee
type doc
  relations
    define blocked: [user]
    define reader: [user, user:*, employee:*] but not blocked
    define approved: [user, user:*]
    define publisher: [user] and approved
`,
    tuples: [
      'user:* reader doc:pub',
      'user:zed blocked doc:pub',
      'employee:* reader doc:int',
      'user:anne reader doc:int',
      'user:* approved doc:pub',
      'user:anne publisher doc:pub',
      'user:beth publisher doc:int',
    ],
    users: ['user:anne', 'user:beth', 'user:zed', 'employee:e1'],
    objects: [
      ['doc:pub', ['blocked', 'reader', 'approved', 'publisher']],
      ['doc:int', ['blocked', 'reader', 'approved', 'publisher']],
    ],
    allowed: [
      'user:zed blocked doc:pub',
      'user:anne reader doc:pub',
      'user:beth reader doc:pub',
      'user:anne approved doc:pub',
      'user:beth approved doc:pub',
      'user:zed approved doc:pub',
      'user:anne publisher doc:pub',
      'employee:e1 reader doc:int',
      'user:anne reader doc:int',
    ],
    listUsers: { 'doc:pub#reader': ['user:*'], 'doc:pub#approved': ['user:*'] },
  },
  {
    name: 'usersets reached through a computed relation (list users follows it as check does)',
    dsl: `model
  schema 1.1
type user
type group
  relations
    define owner: [user]
    define member: [user, group#member] or owner
type doc
  relations
    define viewer: [user, group#member, group#owner]
`,
    tuples: ['user:olga owner group:eng', 'user:anne member group:eng', 'group:eng#member viewer doc:1'],
    users: ['user:olga', 'user:anne', 'user:zed', 'group:eng#member', 'group:eng#owner'],
    objects: [
      ['group:eng', ['owner', 'member']],
      ['doc:1', ['viewer']],
    ],
    allowed: [
      'user:olga owner group:eng',
      'group:eng#owner owner group:eng',
      'user:olga member group:eng',
      'user:anne member group:eng',
      'group:eng#member member group:eng',
      'group:eng#owner member group:eng',
      'user:olga viewer doc:1',
      'user:anne viewer doc:1',
      'group:eng#member viewer doc:1',
      'group:eng#owner viewer doc:1',
    ],
    listUsersets: [
      ['doc:1', 'viewer', 'group#owner', ['group:eng#owner']],
      ['doc:1', 'viewer', 'group#member', ['group:eng#member']],
      ['group:eng', 'member', 'group#owner', ['group:eng#owner']],
    ],
  },
];
