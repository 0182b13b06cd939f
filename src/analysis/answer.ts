// Prometheus's answer to an instant query (/api/v1/query), read as samples. The envelope is
// {status: "success"|"error", data: {resultType, result}, errorType, error}; a query that does not
// parse is answered 400 with errorType "bad_data" (Prometheus docs, "HTTP API: Format overview";
// web/api/v1/api.go returns errorBadData for a parse error). Pure.

/** A bigger answer is refused: an analysis query returns a value, or a few series. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** Sends one GET and resolves with the status and body; rejects on a network failure or the deadline. */
export type HttpGet = (
  url: URL,
  headers: Record<string, string>,
  signal?: AbortSignal,
) => Promise<{ status: number; body: string }>;

/** One value of the answer: a series' labels ({} for a scalar) and its value (NaN kept: it means no data). */
export interface Sample {
  labels: string;
  value: number;
}

export type PrometheusAnswer =
  | { ok: true; samples: Sample[] }
  /** badQuery: Prometheus refused the PromQL itself (bad_data). */
  | { ok: false; badQuery: boolean; message: string };

interface Envelope {
  status?: string;
  errorType?: string;
  error?: string;
  data?: { resultType?: string; result?: unknown };
}

/** Reads an answer's HTTP status and body; never throws. */
export function readAnswer(status: number, body: string): PrometheusAnswer {
  let envelope: Envelope;
  try {
    envelope = JSON.parse(body) as Envelope;
  } catch {
    return {
      ok: false,
      badQuery: false,
      message: `it answered HTTP ${status} that is not Prometheus's JSON (${firstLine(body)})`,
    };
  }
  if (envelope.status !== 'success') {
    const badQuery = envelope.errorType === 'bad_data';
    return {
      ok: false,
      badQuery,
      message: `${envelope.errorType ?? `HTTP ${status}`}: ${firstLine(envelope.error ?? 'no error message')}`,
    };
  }
  const samples = samplesOf(envelope.data);
  return samples
    ? { ok: true, samples }
    : {
        ok: false,
        badQuery: false,
        message: `its answer holds no number (resultType ${envelope.data?.resultType ?? 'none'})`,
      };
}

function samplesOf(data: Envelope['data']): Sample[] | undefined {
  const result = data?.result;
  switch (data?.resultType) {
    case 'scalar':
      return Array.isArray(result) ? [{ labels: '{}', value: Number(result[1]) }] : undefined;
    case 'vector':
      return Array.isArray(result)
        ? (result as Array<{ metric?: Record<string, string>; value?: [number, string] }>).map((entry) => ({
            labels: labelsOf(entry.metric),
            value: Number(entry.value?.[1]),
          }))
        : undefined;
    case 'matrix':
      // A range selector queried at an instant: each series' last sample.
      return Array.isArray(result)
        ? (result as Array<{ metric?: Record<string, string>; values?: Array<[number, string]> }>).flatMap((entry) => {
            const last = entry.values?.at(-1);
            return last ? [{ labels: labelsOf(entry.metric), value: Number(last[1]) }] : [];
          })
        : undefined;
    default:
      return undefined;
  }
}

/** {code="500",job="web"}, sorted, as PromQL writes a series. */
export function labelsOf(metric: Record<string, string> | undefined): string {
  const entries = Object.entries(metric ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return `{${entries.map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(',')}}`;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
