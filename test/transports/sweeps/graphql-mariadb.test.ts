// The GraphQL bad-input sweep on mariadb (rest-graphql-sweep.ts): the operations REST does not
// carry (on-database.ts says why the others are swept over REST alone there).
import { sweepSurface } from './rest-graphql-sweep.js';

await sweepSurface('mariadb', 'graphql-where-no-rest');
