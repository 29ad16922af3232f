/** The HTTP request metrics in the Prometheus text format: counters per status, cumulative histogram buckets. */
import t from 'tap';
import { RequestSeriesSet } from '../../../transports/http/request-series.js';

t.test('counts per status and a cumulative histogram per method and route', async (t) => {
  const set = new RequestSeriesSet();
  const s = set.series('GET', '/v1/meta');
  t.equal(set.series('GET', '/v1/meta'), s, 'one series per pair');
  s.record(200, 0.0004);
  s.record(200, 0.003);
  s.record(404, 0.2);
  s.record(200, 9); // beyond the last bucket: only +Inf
  const text = set.render();
  t.match(text, /# TYPE latchkey_http_requests_total counter\n/);
  t.match(text, /latchkey_http_requests_total\{method="GET",route="\/v1\/meta",status="200"\} 3\n/);
  t.match(text, /latchkey_http_requests_total\{method="GET",route="\/v1\/meta",status="404"\} 1\n/);
  t.match(text, /# TYPE latchkey_http_request_duration_seconds histogram\n/);
  const bucket = (le: string) =>
    Number(
      new RegExp(`_bucket\\{le="${le.replace('+', '\\+')}",method="GET",route="/v1/meta"\\} (\\d+)`).exec(text)?.[1],
    );
  t.equal(bucket('0.001'), 1);
  t.equal(bucket('0.005'), 2);
  t.equal(bucket('0.1'), 2);
  t.equal(bucket('0.5'), 3);
  t.equal(bucket('5'), 3);
  t.equal(bucket('+Inf'), 4);
  t.match(text, /_count\{method="GET",route="\/v1\/meta"\} 4\n/);
  t.match(text, /_sum\{method="GET",route="\/v1\/meta"\} 9\.2034\d*\n/);
});

t.test('label values are escaped', async (t) => {
  const set = new RequestSeriesSet();
  set.series('GET', '/a"b\\c').record(200, 0.01);
  t.match(set.render(), /route="\/a\\"b\\\\c"/);
});
