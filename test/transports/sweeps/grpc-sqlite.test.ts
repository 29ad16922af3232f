// The gRPC bad-input sweep on sqlite (grpc-sweep.ts).
import { sweepGrpc } from './grpc-sweep.js';

await sweepGrpc('sqlite');
