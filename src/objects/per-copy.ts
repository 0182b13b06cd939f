// A pure function of an object read from the cluster, worked out once per copy. kguard never
// changes such an object in place: a newer state is a new copy, so a value kept for a copy never
// goes stale. For work a watch repeats on every look over objects most of which did not change.

/** `compute`, remembered for each key object while that object lives. */
export function perCopy<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const known = new WeakMap<K, V>();
  return (key) => {
    if (known.has(key)) return known.get(key) as V;
    const value = compute(key);
    known.set(key, value);
    return value;
  };
}
