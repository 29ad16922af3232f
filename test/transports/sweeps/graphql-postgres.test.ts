// The GraphQL bad-input sweep on postgres (rest-graphql-sweep.ts): the operations REST does not
// carry (on-database.ts says why the others are swept over REST alone there).
import { sweepSurface } from './rest-graphql-sweep.js';

await sweepSurface('postgres', 'graphql-where-no-rest');
