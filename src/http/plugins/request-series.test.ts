import { describe, expect, it } from 'vitest';
import { RequestSeries } from './request-series.ts';

function lines(text: string, prefix: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(prefix));
}

describe('RequestSeries', () => {
  it('counts requests by method, route and status', () => {
    const series = new RequestSeries();
    series.record('GET', '/api/v1/version', 200, 0.001);
    series.record('GET', '/api/v1/version', 200, 0.002);
    series.record('GET', '/api/v1/version', 404, 0.001);
    series.record('POST', '/api/v1/user/repos', 201, 0.02);
    expect(lines(series.exposition(), 'kiln_http_requests_total{')).toEqual([
      'kiln_http_requests_total{method="GET",route="/api/v1/version",status="200"} 2',
      'kiln_http_requests_total{method="GET",route="/api/v1/version",status="404"} 1',
      'kiln_http_requests_total{method="POST",route="/api/v1/user/repos",status="201"} 1',
    ]);
  });

  it('writes cumulative latency buckets with +Inf, sum and count', () => {
    const series = new RequestSeries();
    for (const seconds of [0.001, 0.005, 0.007, 0.3, 42]) series.record('GET', '/x', 200, seconds);
    const text = series.exposition();
    const bucket = (le: string) =>
      lines(text, `kiln_http_request_duration_seconds_bucket{le="${le}",`)[0]?.split(' ')[1];
    // A bound is inclusive: 0.005 falls in le="0.005".
    expect(bucket('0.005')).toBe('2');
    expect(bucket('0.01')).toBe('3');
    expect(bucket('0.25')).toBe('3');
    expect(bucket('0.5')).toBe('4');
    expect(bucket('10')).toBe('4');
    expect(bucket('+Inf')).toBe('5');
    expect(lines(text, 'kiln_http_request_duration_seconds_count{')).toEqual([
      'kiln_http_request_duration_seconds_count{method="GET",route="/x"} 5',
    ]);
    const sum = Number(lines(text, 'kiln_http_request_duration_seconds_sum{')[0]?.split(' ')[1]);
    expect(sum).toBeCloseTo(42.313, 6);
  });

  it('declares each family once, with help and type, even before any request', () => {
    const text = new RequestSeries().exposition();
    expect(text).toContain('# TYPE kiln_http_requests_total counter\n');
    expect(text).toContain('# TYPE kiln_http_request_duration_seconds histogram\n');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('escapes label values as the text format requires', () => {
    const series = new RequestSeries();
    series.record('GET', '/a"b\\c\nd', 200, 0.001);
    expect(series.exposition()).toContain('route="/a\\"b\\\\c\\nd",status="200"} 1');
  });
});
