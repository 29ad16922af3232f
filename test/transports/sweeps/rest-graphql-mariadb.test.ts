// The REST and GraphQL bad-input sweep on mariadb (rest-graphql-sweep.ts): REST for every operation
// it carries, GraphQL for the others (on-database.ts says why).
import { sweepRestAndGraphql } from './rest-graphql-sweep.js';

await sweepRestAndGraphql('mariadb', 'where-no-rest');
