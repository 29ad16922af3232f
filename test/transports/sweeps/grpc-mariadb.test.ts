// The gRPC bad-input sweep on mariadb (grpc-sweep.ts).
import { sweepGrpc } from './grpc-sweep.js';

await sweepGrpc('mariadb');
