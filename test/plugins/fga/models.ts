/** Model text the FGA tests share: users and groups whose members may be other groups' members. */
export const GROUPS_MODEL = `model
  schema 1.1
type user
type group
  relations
    define member: [user, group#member]
`;
