// A process holding tieToThisProcess ties, for test/db/embedded-lifetime.test.ts: argv pid:dir pairs; prints
// "tied", then exits at once ("exit") or waits to be killed ("wait").
import { tieToThisProcess } from '../../db/embedded-lifetime.js';

const [how, ...ties] = process.argv.slice(2);
for (const tie of ties) {
  const at = tie.indexOf(':');
  tieToThisProcess(Number(tie.slice(0, at)), tie.slice(at + 1));
}
console.log('tied');
if (how === 'exit') process.exit(0);
setInterval(() => {}, 60_000);
