// The gRPC bad-input sweep on postgres (grpc-sweep.ts).
import { sweepGrpc } from './grpc-sweep.js';

await sweepGrpc('postgres');
