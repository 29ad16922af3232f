// The REST and GraphQL bad-input sweep on postgres (rest-graphql-sweep.ts): REST for every operation
// it carries, GraphQL for the others (on-database.ts says why).
import { sweepRestAndGraphql } from './rest-graphql-sweep.js';

await sweepRestAndGraphql('postgres', 'where-no-rest');
