// The REST bad-input sweep on postgres (rest-graphql-sweep.ts): every operation REST carries.
import { sweepSurface } from './rest-graphql-sweep.js';

await sweepSurface('postgres', 'rest');
