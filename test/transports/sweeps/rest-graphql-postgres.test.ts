// The REST and GraphQL bad-input sweep on postgres (rest-graphql-sweep.ts).
import { sweepRestAndGraphql } from './rest-graphql-sweep.js';

await sweepRestAndGraphql('postgres');
