// Kubernetes resource quantities ('500m', '2', '128Mi', '1G') as the scheduler and quota
// admission compare them: CPU in millicores, everything else in plain units (bytes, counts).

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** The quantity's value in base units (cores, bytes, pods). Unparseable input counts as 0. */
export function parseQuantity(quantity: string | number | undefined): number {
  if (quantity === undefined) return 0;
  if (typeof quantity === 'number') return quantity;
  const match = /^([+-]?[0-9.]+)(?:[eE]([+-]?[0-9]+))?([a-zA-Z]*)$/.exec(quantity.trim());
  if (!match) return 0;
  const [, number, exponent, suffix = ''] = match;
  const base = Number(number) * (exponent ? 10 ** Number(exponent) : 1);
  if (suffix in BINARY) return base * BINARY[suffix]!;
  if (suffix in DECIMAL) return base * DECIMAL[suffix]!;
  return 0;
}

export function cpuMillis(quantity: string | number | undefined): number {
  return Math.round(parseQuantity(quantity) * 1000);
}

/** Formats like the API's canonical form: '2', '500m' for CPU. */
export function formatCpu(millis: number): string {
  return millis % 1000 === 0 ? String(millis / 1000) : `${millis}m`;
}

/** Formats bytes like the API's canonical binary form: '4Gi', '128Mi', else plain bytes. */
export function formatBytes(bytes: number): string {
  for (const suffix of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) {
    const unit = BINARY[suffix]!;
    if (bytes !== 0 && bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}

/** maxSurge / maxUnavailable: an int or a percentage string ('25%'). */
export function scaledValue(
  intOrPercent: number | string | undefined,
  total: number,
  roundUp: boolean,
  fallback: string,
): number {
  const value = intOrPercent ?? fallback;
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  if (!percent) return Number.parseInt(value, 10) || 0;
  const scaled = (Number(percent[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}
