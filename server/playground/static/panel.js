// The "as code" panel: the request as curl, JavaScript and Python (tabs), and the link that opens
// the page with the same form; both copied with one button each. Rewritten on every change.
import { $ } from './dom.js';
import { outputFile, snippets } from './code.js';
import { bodyText, linkFragment, request } from './request.js';

const LANGS = ['curl', 'js', 'python'];

/** Rewrites the snippets and the link; `address`: also put the link in the address bar (after an edit). */
export function showCode(names, { address = false } = {}) {
  const { path, body } = request();
  const code = snippets({
    url: `${location.origin}${path}`,
    body,
    text: bodyText(body),
    key: names.send.key,
    type: names.send.type,
    file: outputFile(path, body),
  });
  for (const l of LANGS) $(`code-${l}`).textContent = code[l];
  const fragment = linkFragment();
  $('share-link').value = `${location.origin}${location.pathname}${fragment}`;
  if (address && location.hash !== fragment) history.replaceState(null, '', fragment);
}

function select(tab) {
  for (const l of LANGS) {
    const on = `tab-${l}` === tab.id;
    $(`tab-${l}`).setAttribute('aria-selected', String(on));
    $(`tab-${l}`).tabIndex = on ? 0 : -1;
    $(`panel-${l}`).hidden = !on;
  }
  tab.focus();
}

async function copy(text, status, fallback) {
  try {
    await navigator.clipboard.writeText(text);
    $(status).textContent = 'Copied.';
  } catch {
    fallback(); // no clipboard (a page not served over https): the text is selected for Ctrl+C
    $(status).textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
  }
}

export function wirePanel() {
  const tabs = LANGS.map((l) => $(`tab-${l}`));
  for (const [i, tab] of tabs.entries()) {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (e) => {
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      select(tabs[(to + tabs.length) % tabs.length]);
    });
  }
  $('copy-code').addEventListener('click', () => {
    const code = $(`code-${LANGS.find((l) => !$(`panel-${l}`).hidden)}`);
    copy(code.textContent, 'copy-status', () => getSelection().selectAllChildren(code));
  });
  $('copy-link').addEventListener('click', () => copy($('share-link').value, 'copy-status', () => $('share-link').select()));
}
