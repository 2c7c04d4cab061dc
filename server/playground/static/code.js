// The request as code to copy: curl, JavaScript (fetch) and Python (requests), each sending the very
// bytes the page sends (the same JSON text, the same headers), the key read from the API_KEY
// environment variable, never written out.

/** A shell word in single quotes (a ' inside becomes '\''). */
const sh = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A JSON value as a Python literal: JSON's string escapes are Python's; true, false, null are not. */
function py(v, indent = '') {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v !== 'object') return JSON.stringify(v);
  const inner = `${indent}    `;
  const items = Array.isArray(v) ? v.map((x) => py(x, inner)) : Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${py(x, inner)}`);
  const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
  return items.length ? `${open}\n${items.map((i) => `${inner}${i},`).join('\n')}\n${indent}${close}` : `${open}${close}`;
}

/** Where the picture is written: screenshot.png, screenshot.jpg, diff.png... */
export function outputFile(path, body) {
  if (path.endsWith('/compare')) return 'diff.png';
  return `screenshot.${{ jpeg: 'jpg', webp: 'webp' }[body.format] ?? 'png'}`;
}

/**
 * @param {{url: string, body: object, text: string, key: string, type: string, file: string}} r
 *   the full URL, the body and its text as sent, the key and content-type header names, the file to write
 */
export function snippets({ url, body, text, key, type, file }) {
  const curl = [
    `curl -sS --fail-with-body ${sh(url)} \\`,
    `  -H "${key}: Bearer $API_KEY" \\`,
    `  -H ${sh(`${type}: application/json`)} \\`,
    `  --data-raw ${sh(text)} \\`,
    `  -o ${file}`,
  ].join('\n');
  const js = [
    `// Node 18 or later, as an ES module (file.mjs): API_KEY=... node file.mjs`,
    `import { writeFile } from "node:fs/promises";`,
    ``,
    `const body = ${text};`,
    ``,
    `const res = await fetch(${JSON.stringify(url)}, {`,
    `  method: "POST",`,
    `  headers: { ${JSON.stringify(key)}: \`Bearer \${process.env.API_KEY}\`, ${JSON.stringify(type)}: "application/json" },`,
    `  body: JSON.stringify(body, null, 2),`,
    `});`,
    `if (!res.ok) throw new Error(\`\${res.status}: \${await res.text()}\`);`,
    `await writeFile(${JSON.stringify(file)}, Buffer.from(await res.arrayBuffer()));`,
  ].join('\n');
  const python = [
    `# pip install requests; API_KEY=... python3 file.py`,
    `import json`,
    `import os`,
    ``,
    `import requests`,
    ``,
    `body = ${py(body)}`,
    ``,
    `res = requests.post(`,
    `    ${JSON.stringify(url)},`,
    `    headers={`,
    `        ${JSON.stringify(key)}: f"Bearer {os.environ['API_KEY']}",`,
    `        ${JSON.stringify(type)}: "application/json",`,
    `    },`,
    `    data=json.dumps(body, indent=2, ensure_ascii=False).encode(),`,
    `    timeout=60,`,
    `)`,
    `if not res.ok:`,
    `    raise SystemExit(f"{res.status_code}: {res.text}")`,
    `with open(${JSON.stringify(file)}, "wb") as f:`,
    `    f.write(res.content)`,
  ].join('\n');
  return { curl, js, python };
}
