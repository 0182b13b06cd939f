// Resource quantities ('1Gi', '500M', '1.5Ti', '2e9') as the API server compares them
// (k8s.io/apimachinery/pkg/api/resource quantity.go: binary suffixes Ki…Ei, decimal k…E, exponents). Pure.

const BINARY: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Readonly<Record<string, number>> = {
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

/** The quantity in base units (bytes for storage); undefined when it is not one. */
export function quantityValue(quantity: unknown): number | undefined {
  if (typeof quantity === 'number') return quantity;
  if (typeof quantity !== 'string') return undefined;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+))?([a-zA-Z]*)$/.exec(quantity.trim());
  if (!match) return undefined;
  const [, number, exponent, suffix = ''] = match;
  const scale = BINARY[suffix] ?? DECIMAL[suffix];
  if (scale === undefined || (exponent !== undefined && suffix !== '')) return undefined;
  return Number(number) * (exponent ? 10 ** Number(exponent) : 1) * scale;
}
