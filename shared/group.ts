// Grouping into a Map of lists, in place: `map.set(k, [...(map.get(k) ?? []), v])` copies the list
// on every add, quadratic in a group's size (a commit removing 300,000 files of one partition).

/** Appends `value` to the list at `key`, creating it. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
