/** Model text the FGA tests share: users and groups whose members may be other groups' members. */
export const GROUPS_MODEL = `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
`;

/** GROUPS_MODEL where `user:*` may be a member too (everyone, through a wildcard tuple). */
export const WILDCARD_GROUPS_MODEL = GROUPS_MODEL.replace(
  'define member: [user, group#member]',
  'define member: [user, user:*, group#member]',
);
