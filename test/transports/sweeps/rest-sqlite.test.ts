// The REST bad-input sweep on sqlite (rest-graphql-sweep.ts).
import { sweepSurface } from './rest-graphql-sweep.js';

await sweepSurface('sqlite', 'rest');
