/** Standalone: `npx tsx bench/fga/run.ts` (BENCH_FGA_SIZES=10000 BENCH_FGA_STORES=sqlite for a quick run). */
import { printTable } from '../table.js';
import { runFgaBench } from './index.js';

printTable(await runFgaBench());
