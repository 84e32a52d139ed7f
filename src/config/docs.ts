import { configSchema, envName } from './schema.ts';

const INTRO = `# Configuration

Kiln reads an optional TOML file (\`--config PATH\`, default \`./service.toml\` when it exists) and
then the environment, which wins. Every key \`service.a.b-c\` is written in the file exactly as
named (\`service.http.port = 8080\`, or \`port = 8080\` inside a \`[service.http]\` table) and in
the environment as \`SERVICE_A_B_C\`. Every value is checked at start-up: a bad one stops Kiln with
one line naming the key and the form it accepts. Durations are written \`90s\`, \`5m\`, \`1h\`,
\`1h30m\` (also \`ms\` and \`d\`). Unknown keys in the file are refused; an environment variable
starting \`SERVICE_\` that names no key is ignored with one warning line at start-up naming the
closest key (\`SERVICE_HTTP_PROT\`: did you mean \`SERVICE_HTTP_PORT\`?).

This page is generated from \`src/config/schema.ts\` (\`npm run docs:config\`); a test fails when
they differ.
`;

const EXAMPLE = `## Example

\`\`\`toml
[service.http]
host = "0.0.0.0"
port = 8080

[service]
base-url = "https://git.example.com"
database-url = "postgres://kiln:secret@db.internal/kiln"
admin-handles = ["alice"]
trust-proxy = ["10.0.0.5"]
\`\`\`
`;

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** The Markdown of docs/configuration.md, derived from the schema so the two cannot drift. */
export function renderConfigDocs(): string {
  const rows = Object.entries(configSchema).map(
    ([key, field]) =>
      `| \`${key}\` | \`${envName(key)}\` | ${cell(field.defaultText)} | ${cell(field.form)} | ${cell(field.description)} |`,
  );
  return [
    INTRO,
    '## Keys',
    '',
    '| key | environment | default | accepted | meaning |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    EXAMPLE,
  ].join('\n');
}
