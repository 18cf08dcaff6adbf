// The interoperability list (interoperability.ts) as Markdown: served by GET /api/iec104/interoperability with
// ?format=markdown, and the copy in docs/iec104.md (test/docs/iec104-interoperability.test.ts keeps it equal).
import { Cot } from '../asdu/cot.js';
import type { InteroperabilityList, Section, Status } from './interoperability.js';

const MARK: Readonly<Record<Status, string>> = { supported: 'X', 'not supported': ' ', 'not applicable': '-', 'not used in 104': '-' };
const COT_NAMES = new Map<number, string>(Object.entries(Cot).map(([k, v]) => [v, k.toLowerCase().replaceAll('_', ' ')]));
const cotName = (c: number): string => COT_NAMES.get(c) ?? (c > 20 && c <= 36 ? `interrogated by group ${c - 20}` : String(c));
const cell = (s: string): string => s.replaceAll('|', '\\|');

function section(s: Section): string[] {
  const out = [`### ${s.clause} ${s.title}`, '', '| | item | value |', '| --- | --- | --- |'];
  for (const i of s.items) out.push(`| [${MARK[i.status]}] | ${cell(i.item)} (${i.status}) | ${cell(i.value ?? '')} |`);
  for (const g of s.types ?? []) {
    out.push('', `Selection of standard ASDUs, ${g.group}:`, '', '| | type | | status |', '| --- | --- | --- | --- |');
    for (const t of g.types) out.push(`| [${MARK[t.status]}] | <${t.typeId}> ${t.name} | ${cell(t.description)} | ${t.status}${t.note ? `: ${cell(t.note)}` : ''} |`);
  }
  if (s.causes) {
    out.push('', 'Type identifier and cause of transmission assignments (the causes this station sends or accepts):', '', '| type | causes of transmission |', '| --- | --- |');
    for (const c of s.causes) out.push(`| <${c.typeId}> ${c.name} | ${c.causes.map((n) => `${n} ${cotName(n)}`).join(', ')} |`);
  }
  if (s.parameters) {
    out.push('', '| parameter | value | default | range | meaning |', '| --- | --- | --- | --- | --- |');
    for (const p of s.parameters) out.push(`| ${p.name} | ${p.value} ${p.unit} | ${p.default} ${p.unit} | ${p.range[0]}..${p.range[1]} ${p.unit} | ${cell(p.meaning)} |`);
  }
  return [...out, ''];
}

/** The list's sections (### 9.1 ...) under a legend; `title` adds the list's title as a level 1 heading. */
export function interoperabilityMarkdown(list: InteroperabilityList, { title = false } = {}): string {
  return [
    ...(title ? [`# ${list.title}`, ''] : []),
    `[X] supported, [ ] not supported, [-] not applicable to IEC 60870-5-104 or not used by it.${list.integrationId ? ` Integration \`${list.integrationId}\`.` : ''}`, '',
    ...list.sections.flatMap(section),
  ].join('\n');
}
