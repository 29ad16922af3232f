// The GraphQL bad-input sweep on sqlite (rest-graphql-sweep.ts).
import { sweepSurface } from './rest-graphql-sweep.js';

await sweepSurface('sqlite', 'graphql');
