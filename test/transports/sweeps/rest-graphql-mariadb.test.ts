// The REST and GraphQL bad-input sweep on mariadb (rest-graphql-sweep.ts).
import { sweepRestAndGraphql } from './rest-graphql-sweep.js';

await sweepRestAndGraphql('mariadb');
