/** Standalone: `npx tsx bench/fga/run.ts` (FGA_BENCH_SIZES=10000 for a quick run). */
import { printTable } from '../table.js';
import { runFgaBench } from './index.js';

printTable(await runFgaBench());
