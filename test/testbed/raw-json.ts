/**
 * Returns the raw text of a top-level member of a JSON object text, exactly
 * as the server wrote it — for byte comparisons that parsing would hide.
 */
export const rawMember = (json: string, key: string): string | undefined => {
  let depth = 0;
  let i = 0;
  const skipString = (from: number): number => {
    let j = from + 1;
    while (json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
    return j + 1;
  };
  while (i < json.length) {
    const c = json[i];
    if (c === '"') {
      const end = skipString(i);
      if (
        depth === 1 &&
        json.slice(i, end) === JSON.stringify(key) &&
        json[end] === ':'
      ) {
        const start = end + 1;
        let j = start;
        let d = 0;
        while (j < json.length) {
          const cj = json[j];
          if (cj === '"') {
            j = skipString(j);
            if (d === 0) return json.slice(start, j);
            continue;
          }
          if (cj === '{' || cj === '[') d++;
          else if (cj === '}' || cj === ']') {
            if (d === 0) return json.slice(start, j);
            d--;
            if (d === 0) return json.slice(start, j + 1);
          } else if (cj === ',' && d === 0) return json.slice(start, j);
          j++;
        }
        return undefined;
      }
      i = end;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    i++;
  }
  return undefined;
};
