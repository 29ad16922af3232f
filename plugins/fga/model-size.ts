/**
 * A model's DSL is kept in a TEXT column, which holds 65,535 bytes on MySQL and MariaDB: a larger
 * model was a 500 there and stored on the other databases (review finding). The same bound on
 * every store: in characters by the input schema (schemas.ts), in UTF-8 bytes at install
 * (FgaService.installModel). OpenFGA's own default bound is larger (256 KiB); a model this size
 * is already about 1,500 lines.
 */
export const MAX_MODEL_BYTES = 65_535;
