// GitLab's reading of a JUnit report, for tests: what Gitlab::Ci::Parsers::Test::Junit keeps
// (https://docs.gitlab.com/ci/testing/unit_test_reports/, "JUnit XML format specification"): per
// testcase its classname (shown as the suite), name, file and time; the status comes from a
// <failure>, <error> or <skipped> child, whose text is the only detail shown (the message
// attribute is ignored); system-out is read from a testcase only. A small XML reader that knows
// the subset kguard writes: elements, attributes, text and the five predefined entities.

export interface GitlabTestCase {
  suite: string;
  name: string;
  file?: string;
  time: number;
  status: 'success' | 'failed' | 'error' | 'skipped';
  /** What GitLab shows for the case: the text of its failure, error or skipped element. */
  systemOutput: string | null;
}

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export function gitlabTestCases(xml: string): GitlabTestCase[] {
  const root = parseXml(xml);
  const cases: GitlabTestCase[] = [];
  const visit = (element: XmlElement, suite: string) => {
    if (element.name === 'testcase') {
      const child = (name: string) => element.children.find((candidate) => candidate.name === name);
      const failure = child('failure');
      const error = child('error');
      const skipped = child('skipped');
      cases.push({
        suite: element.attributes.classname ?? suite,
        name: element.attributes.name ?? '',
        file: element.attributes.file,
        time: Number(element.attributes.time ?? 0),
        status: failure ? 'failed' : error ? 'error' : skipped ? 'skipped' : 'success',
        systemOutput: (failure ?? error ?? skipped)?.text ?? null,
      });
      return;
    }
    for (const child of element.children)
      visit(child, element.name === 'testsuite' ? (element.attributes.name ?? suite) : suite);
  };
  visit(root, '');
  return cases;
}

function parseXml(xml: string): XmlElement {
  let at = xml.startsWith('<?xml') ? xml.indexOf('?>') + 2 : 0;
  const skipSpace = () => {
    while (/\s/.test(xml[at] ?? '')) at += 1;
  };
  const element = (): XmlElement => {
    skipSpace();
    const tag = /^<([\w:-]+)/.exec(xml.slice(at));
    if (!tag) throw new Error(`expected an element at ${at}: ${xml.slice(at, at + 40)}`);
    at += tag[0].length;
    const node: XmlElement = { name: tag[1]!, attributes: {}, children: [], text: '' };
    for (;;) {
      skipSpace();
      if (xml.startsWith('/>', at)) {
        at += 2;
        return node;
      }
      if (xml[at] === '>') {
        at += 1;
        break;
      }
      const attribute = /^([\w:-]+)="([^"]*)"/.exec(xml.slice(at));
      if (!attribute) throw new Error(`bad attribute at ${at}: ${xml.slice(at, at + 40)}`);
      node.attributes[attribute[1]!] = decode(attribute[2]!);
      at += attribute[0].length;
    }
    for (;;) {
      const next = xml.indexOf('<', at);
      node.text += decode(xml.slice(at, next));
      at = next;
      if (xml.startsWith(`</${node.name}>`, at)) {
        at += node.name.length + 3;
        return node;
      }
      node.children.push(element());
    }
  };
  return element();
}

function decode(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#(\d+));/g, (_entity, name: string, code?: string) =>
    code
      ? String.fromCharCode(Number(code))
      : ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' } as Record<string, string>)[name]!,
  );
}
