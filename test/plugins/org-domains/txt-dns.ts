/**
 * A real DNS server on 127.0.0.1 (dns2) serving TXT records from a table each test case sets;
 * names in `silent` get no answer at all (a server that never answers, for the timeout case).
 */
import dns2 from 'dns2';

export interface TxtDns {
  /** TXT records per name: each record a string, or its character-strings as a list. */
  records: Map<string, (string | string[])[]>;
  silent: Set<string>;
  /** Questions seen, `name TYPE`. */
  readonly questions: string[];
  /** `127.0.0.1:<port>`, the --dns-resolver value. */
  address: string;
  close(): Promise<void>;
}

export async function startTxtDns(): Promise<TxtDns> {
  const records = new Map<string, (string | string[])[]>();
  const silent = new Set<string>();
  const questions: string[] = [];
  const { Packet } = dns2;
  const typeName = (type: number) => Object.entries(Packet.TYPE).find(([, v]) => v === type)?.[0] ?? String(type);
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const [question] = request.questions;
      questions.push(`${question.name} ${typeName(question.type)}`);
      if (silent.has(question.name)) return;
      const response = Packet.createResponseFromRequest(request);
      if (question.type === Packet.TYPE.TXT) {
        for (const data of records.get(question.name) ?? []) {
          response.answers.push(
            Packet.createResourceFromQuestion(question, {
              type: Packet.TYPE.TXT,
              class: Packet.CLASS.IN,
              ttl: 0,
              data,
            }),
          );
        }
      }
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = (server.addresses() as { udp: { port: number } }).udp.port;
  return { records, silent, questions, address: `127.0.0.1:${port}`, close: () => server.close() };
}
