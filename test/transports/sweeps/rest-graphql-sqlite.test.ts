// The REST and GraphQL bad-input sweep on sqlite (rest-graphql-sweep.ts).
import { sweepRestAndGraphql } from './rest-graphql-sweep.js';

await sweepRestAndGraphql('sqlite');
