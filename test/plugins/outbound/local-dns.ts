/**
 * A real DNS server on 127.0.0.1 (dns2) answering A and AAAA questions from a table the test
 * may change between questions, and a Resolver for the guarded client that asks it alone.
 */
import { Resolver as DnsResolver } from 'node:dns/promises';
import dns2 from 'dns2';
import type { Resolver } from '../../../plugins/outbound/index.js';

export interface LocalDns {
  /** Answers for each name: a list, or a function called per question (its answers may change). */
  answers: Map<string, string[] | (() => string[])>;
  /** Questions seen, in order (`name type`). */
  readonly questions: string[];
  resolver: Resolver;
  close(): Promise<void>;
}

export async function startLocalDns(): Promise<LocalDns> {
  const answers = new Map<string, string[] | (() => string[])>();
  const questions: string[] = [];
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const wantV6 = question.type === Packet.TYPE.AAAA;
      questions.push(`${question.name} ${wantV6 ? 'AAAA' : 'A'}`);
      const entry = answers.get(question.name);
      const list = typeof entry === 'function' ? entry() : (entry ?? []);
      for (const address of list) {
        if (address.includes(':') !== wantV6) continue;
        response.answers.push(
          Packet.createResourceFromQuestion(question, {
            type: wantV6 ? Packet.TYPE.AAAA : Packet.TYPE.A,
            class: Packet.CLASS.IN,
            ttl: 0,
            address,
          }),
        );
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = (server.addresses() as { udp: { port: number } }).udp.port;
  const dns = new DnsResolver({ timeout: 1000, tries: 1 });
  dns.setServers([`127.0.0.1:${port}`]);
  const resolver: Resolver = async (hostname) => {
    const [v4, v6] = await Promise.all([
      dns.resolve4(hostname).catch(() => []),
      dns.resolve6(hostname).catch(() => []),
    ]);
    return [
      ...v4.map((address) => ({ address, family: 4 as const })),
      ...v6.map((address) => ({ address, family: 6 as const })),
    ];
  };
  return { answers, questions, resolver, close: () => server.close() };
}
