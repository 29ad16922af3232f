// The REST bad-input sweep on mariadb (rest-graphql-sweep.ts): every operation REST carries.
import { sweepSurface } from './rest-graphql-sweep.js';

await sweepSurface('mariadb', 'rest');
