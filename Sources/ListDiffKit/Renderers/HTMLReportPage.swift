/// The fixed parts of the HTML report: its style, its markup and its script. The data comes
/// between them (`HTMLRenderer`). The script builds every element from the data with
/// `textContent`, never from markup, and draws one page of changes at a time.
///
/// The Content-Security-Policy allows this style and this script by their SHA-256 and nothing
/// else: no other script, style, image, font, frame or connection, so the report loads
/// nothing from anywhere.
enum HTMLReportPage {
    static let style = #"""
        :root{color-scheme:light dark;--fg:#1f2328;--bg:#fff;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;
        --ins:#1a7f37;--ins-bg:#dafbe1;--ins-mark:#aceebb;--del:#cf222e;--del-bg:#ffebe9;--del-mark:#ffcecb;--mov:#8250df;--upd:#9a6700;--hl:#fff8c5}
        @media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#3d444d;--card:#151b23;
        --ins:#3fb950;--ins-bg:#12261e;--ins-mark:#1f6f3b;--del:#f85149;--del-bg:#25171c;--del-mark:#8e1519;--mov:#ab7df8;--upd:#d29922;--hl:#3b2e00}}
        *{box-sizing:border-box}
        body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
        header.top,#controls,main,footer{padding:0 16px;max-width:1400px;margin:0 auto}
        h1{font-size:20px;margin:16px 0 4px;overflow-wrap:anywhere}
        h2{font-size:16px;margin:20px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
        dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0;color:var(--muted)}
        dl.meta dt{font-weight:600}dl.meta dd{margin:0;overflow-wrap:anywhere}
        .summary{display:flex;flex-wrap:wrap;gap:6px 16px;margin:8px 0;font-weight:600}
        .count .mark,.card .mark{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
        .k-i{color:var(--ins)}.k-d{color:var(--del)}.k-m{color:var(--mov)}.k-u{color:var(--upd)}.k-r{color:var(--mov)}.k-s{color:var(--muted)}
        #controls{position:sticky;top:0;background:var(--bg);border-bottom:1px solid var(--line);padding-top:8px;padding-bottom:8px;z-index:1;
        display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center}
        #controls label{white-space:nowrap}
        #search{min-width:16em;padding:3px 6px;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:4px}
        select,button{font:inherit;color:inherit;background:var(--card);border:1px solid var(--line);border-radius:4px;padding:2px 8px}
        button:disabled{opacity:.5}
        #status{color:var(--muted)}
        .pager{display:flex;gap:8px;align-items:center;margin:12px 0}
        .card{border:1px solid var(--line);border-left-width:4px;border-radius:6px;margin:10px 0;background:var(--card);break-inside:avoid}
        .card.op-i{border-left-color:var(--ins)}.card.op-d{border-left-color:var(--del)}.card.op-m{border-left-color:var(--mov)}.card.op-u{border-left-color:var(--upd)}.card.op-r{border-left-color:var(--mov)}
        .card.target{outline:3px solid var(--hl);box-shadow:0 0 0 3px var(--upd)}
        .card>.head{padding:6px 10px;display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline}
        .card .key{font-weight:600;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;color:inherit;overflow-wrap:anywhere}
        .card .pos{color:var(--muted)}
        .body{padding:0 10px 8px}
        pre,.val{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
        pre.record{padding:6px 8px;border-radius:4px}
        .op-i pre.record{background:var(--ins-bg)}.op-d pre.record{background:var(--del-bg)}
        .fields{display:grid;grid-template-columns:minmax(6em,max-content) minmax(0,1fr) minmax(0,1fr);gap:2px 8px}
        .inline .fields{grid-template-columns:minmax(6em,max-content) minmax(0,1fr)}
        .inline .fields .path{grid-row:span 2}
        .fields .path{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;color:var(--muted);overflow-wrap:anywhere}
        .fields .val{padding:1px 6px;border-radius:3px}
        .val.old{background:var(--del-bg)}.val.new{background:var(--ins-bg)}
        .val.old::before{content:"- ";color:var(--del);font-weight:700}.val.new::before{content:"+ ";color:var(--ins);font-weight:700}
        .val.none{color:var(--muted);font-style:italic}
        del{background:var(--del-mark);text-decoration:line-through;text-decoration-thickness:1px}
        ins{background:var(--ins-mark);text-decoration:underline;text-decoration-thickness:2px}
        .folded{max-height:16em;overflow:hidden;position:relative}
        .unfold{margin-top:4px}
        .empty{padding:24px 0;color:var(--muted)}
        table.sections{border-collapse:collapse;margin:6px 0}table.sections td{padding:2px 10px 2px 0;vertical-align:top}
        footer{color:var(--muted);padding-top:16px;padding-bottom:24px}
        @media print{#controls,.pager,.unfold,.link{display:none!important}.folded{max-height:none;overflow:visible}
        body{background:#fff;color:#000}.card{background:#fff}a{color:inherit;text-decoration:none}}
        """#

    /// The markup before the data: the page's frame, filled in by the script.
    static let body = #"""
        <header class="top"><h1 id="title">listdiff report</h1><dl class="meta" id="meta"></dl><div class="summary" id="summary"></div>
        <div id="sections"></div></header>
        <div id="controls" role="search">
        <span id="kinds"></span>
        <label id="section-filter" hidden>Section <select id="section"><option value="-1">all</option></select></label>
        <label>Search <input id="search" type="search" placeholder="keys and values" autocomplete="off"></label>
        <label><input id="inline" type="checkbox"> inline (old above new)</label>
        <span id="status" aria-live="polite"></span>
        </div>
        <main id="changes"><noscript><p class="empty">This report draws its changes with JavaScript, which is off.</p></noscript></main>
        <footer id="footer"></footer>

        """#

    static let script = #"""
        (function () {
        'use strict';
        var R = JSON.parse(document.getElementById('listdiff-report').textContent);
        var C = JSON.parse(document.getElementById('listdiff-changes').textContent);
        var KIND = {i: ['+', 'inserted'], d: ['-', 'deleted'], m: ['>', 'moved'], u: ['~', 'updated'], r: ['%', 'renamed']};
        var ORDER = R.summary.length > 5 ? ['i', 'd', 'm', 'u', 'r'] : ['i', 'd', 'm', 'u'];
        var PAGE = 100, FOLD_LINES = 24, FOLD_CHARS = 2000, PRINT_MAX = 2000;
        var state = {kinds: {i: true, d: true, m: true, u: true, r: true}, group: -1, query: '', page: 0};
        var $ = function (id) { return document.getElementById(id); };

        function el(tag, cls, text) {
          var e = document.createElement(tag);
          if (cls) e.className = cls;
          if (text !== undefined && text !== null) e.textContent = String(text);
          return e;
        }

        // Each change's anchor: its key as shown, made unique by ~2, ~3 ... in order.
        var anchors = new Map(), anchorOf = new Array(C.length), counts = {i: 0, d: 0, m: 0, u: 0, r: 0};
        for (var k = 0; k < C.length; k++) {
          var base = C[k][2], name = base, n = 2;
          while (anchors.has(name)) name = base + '~' + (n++);
          anchors.set(name, k);
          anchorOf[k] = name;
          counts[C[k][0]]++;
        }

        // The header: names, rules, counts.
        document.title = 'listdiff: ' + R.old + ' \u2192 ' + R.new;
        $('title').textContent = 'listdiff: ' + R.old + ' \u2192 ' + R.new;
        var meta = $('meta');
        function row(term, value) {
          if (value === null || value === undefined || value === '') return;
          meta.appendChild(el('dt', null, term));
          meta.appendChild(el('dd', null, value));
        }
        row('old', R.old + ' (' + R.records[0] + ' records)');
        row('new', R.new + ' (' + R.records[1] + ' records)');
        row('key', R.key);
        row('rules', R.rules);
        row('layout', R.layout);
        row('algorithm', R.algorithm);
        row('shown', R.shown);
        var summary = $('summary');
        var names = ['inserted', 'deleted', 'moved', 'updated', 'unchanged', 'renamed'], marks = ['+', '-', '>', '~', '=', '%'];
        var tags = ['i', 'd', 'm', 'u', 's', 'r'];
        for (var s = 0; s < R.summary.length; s++) {
          var c = el('span', 'count k-' + tags[s]);
          c.setAttribute('data-kind', names[s]);
          c.appendChild(el('span', 'mark', marks[s] + ' '));
          c.appendChild(el('span', 'n', R.summary[s]));
          c.appendChild(document.createTextNode(' ' + names[s]));
          summary.appendChild(c);
        }
        if (R.sectionChanges.length) {
          var box = $('sections');
          box.appendChild(el('h2', null, 'Sections (' + R.sectionChanges.length + ')'));
          var table = el('table', 'sections');
          R.sectionChanges.forEach(function (op) {
            var tr = el('tr', 'section-change');
            tr.setAttribute('data-op', op[0]);
            var td = el('td', 'k-' + op[0]);
            td.appendChild(el('span', 'mark', KIND[op[0]][0] + ' '));
            td.appendChild(document.createTextNode(KIND[op[0]][1]));
            tr.appendChild(td);
            tr.appendChild(el('td', 'key', op[1]));
            tr.appendChild(el('td', 'pos', place(op[2], op[3])));
            var fields = el('td');
            if (op[4] && op[4].length) fields.appendChild(fieldGrid(op[4]));
            tr.appendChild(fields);
            table.appendChild(tr);
          });
          box.appendChild(table);
        }
        $('footer').textContent = R.generator + ' \u00b7 ' + C.length + ' changes';

        // The controls.
        var kinds = $('kinds');
        ORDER.forEach(function (op) {
          var label = el('label', 'k-' + op), box = el('input');
          box.type = 'checkbox';
          box.checked = true;
          box.id = 'kind-' + op;
          box.setAttribute('data-kind', op);
          box.addEventListener('change', function () { state.kinds[op] = box.checked; refilter(); });
          label.appendChild(box);
          label.appendChild(document.createTextNode(' ' + KIND[op][0] + ' ' + KIND[op][1] + ' (' + counts[op] + ')'));
          kinds.appendChild(label);
          kinds.appendChild(document.createTextNode(' '));
        });
        if (R.sectioned) {
          $('section-filter').hidden = false;
          var select = $('section');
          R.groups.forEach(function (g, i) { var o = el('option', null, g); o.value = String(i); select.appendChild(o); });
          select.addEventListener('change', function () { state.group = Number(select.value); refilter(); });
        }
        var timer = 0;
        $('search').addEventListener('input', function () {
          clearTimeout(timer);
          timer = setTimeout(function () { state.query = $('search').value.toLowerCase(); refilter(); }, 120);
        });
        $('inline').addEventListener('change', function () {
          document.body.classList.toggle('inline', $('inline').checked);
        });

        // What a search looks in: the key, the record and the fields, made once, when first asked.
        var hay = null;
        function haystack(k) {
          if (!hay) hay = new Array(C.length);
          if (hay[k] === undefined) {
            var c = C[k], parts = [c[2]], body = c[0] === 'r' ? c[6] : c[5];
            if (c[0] === 'r') parts.push(c[5]);
            if (typeof body === 'string') parts.push(body);
            else if (body) body.forEach(function (f) { parts.push(f[0], f[1] || '', f[2] || ''); });
            hay[k] = parts.join('\n').toLowerCase();
          }
          return hay[k];
        }
        function matches(k) {
          var c = C[k];
          if (!state.kinds[c[0]]) return false;
          if (state.group >= 0 && c[1] !== state.group) return false;
          return !state.query || haystack(k).indexOf(state.query) >= 0;
        }
        var shown = [];
        function refilter() {
          shown = [];
          for (var k = 0; k < C.length; k++) if (matches(k)) shown.push(k);
          state.page = 0;
          draw();
        }

        function place(a, b) {
          if (a !== null && b !== null) return 'at ' + a + ' \u2192 ' + b;
          return 'at ' + (a !== null ? a : b);
        }

        // Compact JSON text, indented: strings are copied as they are, so numbers and escapes stay as written.
        function pretty(text) {
          if (text.length <= 72) return text;
          var out = [], depth = 0, re = /"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^"{}\[\],:]+/g, m;
          function nl() { return '\n' + '  '.repeat(depth); }
          while ((m = re.exec(text))) {
            var t = m[0];
            if (t === '{' || t === '[') {
              var close = t === '{' ? '}' : ']';
              if (text[re.lastIndex] === close) { out.push(t + close); re.lastIndex++; } else { depth++; out.push(t + nl()); }
            } else if (t === '}' || t === ']') { depth--; out.push(nl() + t); }
            else if (t === ',') out.push(',' + nl());
            else if (t === ':') out.push(': ');
            else out.push(t);
          }
          return out.join('');
        }

        // A value, with the changed parts (UTF-16 offsets, in pairs) marked by <del> or <ins>.
        function marked(node, text, spans, tag) {
          var at = 0;
          for (var i = 0; spans && i + 1 < spans.length; i += 2) {
            if (spans[i] > at) node.appendChild(document.createTextNode(text.slice(at, spans[i])));
            node.appendChild(el(tag, null, text.slice(spans[i], spans[i + 1])));
            at = spans[i + 1];
          }
          if (at < text.length) node.appendChild(document.createTextNode(text.slice(at)));
          return node;
        }
        function foldable(node, size) {
          if (size <= FOLD_CHARS && node.textContent.split('\n').length <= FOLD_LINES) return [node];
          node.classList.add('folded');
          var button = el('button', 'unfold', 'show all (' + size + ' characters)');
          button.type = 'button';
          button.addEventListener('click', function () {
            var folded = node.classList.toggle('folded');
            button.textContent = folded ? 'show all (' + size + ' characters)' : 'fold';
          });
          return [node, button];
        }
        function cell(text, spans, side) {
          var wrap = el('div', 'cell');
          if (text === null) { wrap.appendChild(el('div', 'val ' + side + ' none', '(none)')); return wrap; }
          foldable(marked(el('div', 'val ' + side), text, spans, side === 'old' ? 'del' : 'ins'), text.length)
            .forEach(function (n) { wrap.appendChild(n); });
          return wrap;
        }
        function fieldGrid(fields) {
          var grid = el('div', 'fields');
          if (!fields.length) { grid.appendChild(el('div', 'path', '(member order)')); return grid; }
          fields.forEach(function (f) {
            if (!Array.isArray(f)) {
              grid.appendChild(el('div', 'path', f.path));
              grid.appendChild(cell('moved from #' + f.from, null, 'old'));
              grid.appendChild(cell('to #' + f.to, null, 'new'));
              return;
            }
            grid.appendChild(el('div', 'path', f[0]));
            grid.appendChild(cell(f[1], f[3], 'old'));
            grid.appendChild(cell(f[2], f[4], 'new'));
          });
          return grid;
        }
        function card(k) {
          var c = C[k], op = c[0], anchor = anchorOf[k];
          var article = el('article', 'card op-' + op);
          article.id = anchor;
          article.setAttribute('data-op', op);
          article.setAttribute('data-index', String(k));
          var head = el('div', 'head');
          var kind = el('span', 'k-' + op);
          kind.appendChild(el('span', 'mark', KIND[op][0]));
          kind.appendChild(document.createTextNode(' ' + KIND[op][1]));
          head.appendChild(kind);
          if (op === 'r') head.appendChild(el('span', 'key old-key', c[5] + ' \u2192'));
          var link = el('a', 'key', c[2]);
          link.href = '#' + encodeURIComponent(anchor);
          head.appendChild(link);
          head.appendChild(el('span', 'pos', op === 'm' || op === 'r' ? 'from ' + c[3] + ' to ' + c[4] : place(c[3], c[4])));
          article.appendChild(head);
          var body = el('div', 'body');
          if (op === 'u') body.appendChild(fieldGrid(c[5]));
          else if (op === 'r') { if (c[6].length) body.appendChild(fieldGrid(c[6])); }
          else if (typeof c[5] === 'string') {
            var text = pretty(c[5]);
            foldable(el('pre', 'record', text), c[5].length).forEach(function (n) { body.appendChild(n); });
          }
          if (body.firstChild) article.appendChild(body);
          return article;
        }

        function pager() {
          var pages = Math.max(1, Math.ceil(shown.length / PAGE)), box = el('nav', 'pager');
          function button(label, page) {
            var b = el('button', 'page', label);
            b.type = 'button';
            b.disabled = page < 0 || page >= pages || page === state.page;
            b.addEventListener('click', function () { state.page = page; draw(); window.scrollTo(0, 0); });
            box.appendChild(b);
          }
          button('\u00ab first', 0);
          button('\u2039 previous', state.page - 1);
          box.appendChild(el('span', null, 'page ' + (state.page + 1) + ' of ' + pages));
          button('next \u203a', state.page + 1);
          button('last \u00bb', pages - 1);
          return box;
        }
        function draw(all) {
          var main = $('changes');
          main.textContent = '';
          var from = all ? 0 : state.page * PAGE, to = all ? Math.min(shown.length, PRINT_MAX) : Math.min(shown.length, from + PAGE);
          $('status').textContent = shown.length
            ? 'showing ' + (from + 1) + '\u2013' + to + ' of ' + shown.length + (shown.length === C.length ? ' changes' : ' matching changes (' + C.length + ' in all)')
            : 'no change matches';
          if (!C.length) { main.appendChild(el('p', 'empty', 'No differences.')); return; }
          if (!shown.length) { main.appendChild(el('p', 'empty', 'No change matches the filters.')); return; }
          if (!all && shown.length > PAGE) main.appendChild(pager());
          var group = -1;
          for (var i = from; i < to; i++) {
            var k = shown[i];
            if (R.sectioned && C[k][1] !== group) {
              group = C[k][1];
              main.appendChild(el('h2', 'group', R.groups[group]));
            }
            main.appendChild(card(k));
          }
          if (all && shown.length > to) main.appendChild(el('p', 'empty', 'The first ' + to + ' of ' + shown.length + ' changes: filter to print others.'));
          if (!all && shown.length > PAGE) main.appendChild(pager());
        }

        // #key: show the change named, on its page, whatever the filters hid.
        function follow() {
          var name;
          try { name = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
          if (!name) return;
          var k = anchors.get(name);
          if (k === undefined) return;
          if (!matches(k)) {
            state.kinds = {i: true, d: true, m: true, u: true, r: true};
            state.group = -1;
            state.query = '';
            $('search').value = '';
            $('section').value = '-1';
            ORDER.forEach(function (op) { $('kind-' + op).checked = true; });
            refilter();
          }
          var at = shown.indexOf(k);
          state.page = Math.floor(at / PAGE);
          draw();
          var target = document.getElementById(name);
          if (target) { target.classList.add('target'); target.scrollIntoView(); }
        }
        window.addEventListener('hashchange', follow);
        window.addEventListener('beforeprint', function () { draw(true); });
        window.addEventListener('afterprint', function () { draw(); });

        refilter();
        follow();
        document.documentElement.setAttribute('data-ready', String(Math.round(performance.now())));
        })();

        """#

    /// The page up to its data: the head with its policy and style, and the frame.
    static let top =
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="\(policy)">
        <meta name="referrer" content="no-referrer">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>listdiff report</title>
        <style>\(style)</style>
        </head>
        <body>

        """ + body

    /// The page after its data: the script.
    static let bottom = "<script>\(script)</script>\n</body>\n</html>\n"

    /// No source at all but this style and this script, named by their hashes.
    static let policy =
        "default-src 'none'; script-src 'sha256-\(SHA256.base64Digest(script))'; style-src 'sha256-\(SHA256.base64Digest(style))'; "
        + "img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; "
        + "worker-src 'none'; manifest-src 'none'; base-uri 'none'; form-action 'none'"
}
