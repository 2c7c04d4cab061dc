// The page that shows the preparing fields working together through each way in (REST links,
// MCP): css paints #mark blue, a click on #b marks the body, js then turns #mark green, and its
// image (/prep.png) is there to be blocked.
import { page, type Fixture } from './fixture.ts';

export const PREP_CSS = '#mark { position: absolute; left: 60px; top: 0; width: 40px; height: 40px; background: rgb(0, 0, 255) }';
export const PREP_JS = "if (document.body.dataset.clicked === 'yes') document.getElementById('mark').style.background = 'rgb(0, 170, 0)';";

/** Serves the page at `path` on `fx`. */
export function servePrepPage(fx: Fixture, path: string): void {
  page(
    fx,
    path,
    `<body style="margin:0"><button id="b" style="position:absolute;left:0;top:0;width:40px;height:40px">b</button><div id="mark"></div><img src="/prep.png">
<script>document.getElementById('b').addEventListener('click', () => { document.body.dataset.clicked = 'yes'; });</script></body>`,
  );
}
