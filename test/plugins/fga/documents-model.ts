/**
 * The FGA model the plugin tests share: users and agents view documents directly, through groups
 * (nested) and through folder inheritance, and a blocked user is excluded from can_view.
 */
export const MODEL = `model
  schema 1.1
type user
type agent
type group
  relations
    define member: [user, group#member]
type folder
  relations
    define parent: [folder]
    define viewer: [user, agent, group#member] or viewer from parent
type document
  relations
    define parent: [folder]
    define blocked: [user]
    define viewer: [user, agent, group#member] or viewer from parent
    define can_view: viewer but not blocked
`;
