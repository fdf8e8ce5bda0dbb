import hashlib, html.parser, os, pathlib, sys, urllib.parse, urllib.request
page = os.environ["SDIST_INDEX"].rstrip("/") + "/" + os.environ["SDIST_PROJECT"] + "/"
if page.startswith("file:"):
    page += "index.html"
class Links(html.parser.HTMLParser):
    links = []
    def handle_starttag(self, tag, attrs):
        self.links += [v for k, v in attrs if tag == "a" and k == "href" and v]
p = Links()
p.feed(urllib.request.urlopen(page).read().decode())
want = os.environ["SDIST_FILE"]
hits = [urllib.parse.urljoin(page, h).split("#")[0] for h in p.links
        if urllib.parse.urlsplit(h).path.rsplit("/", 1)[-1] == want]
if not hits:
    sys.exit(f"{want} is not on {page}")
data = urllib.request.urlopen(hits[0]).read()
got = hashlib.sha256(data).hexdigest()
if got != os.environ["SDIST_SHA256"]:
    sys.exit(f"{want}: sha256 {got}, the workflow pins {os.environ['SDIST_SHA256']}")
out = pathlib.Path(os.environ["SDIST"])
out.parent.mkdir(parents=True, exist_ok=True)
out.write_bytes(data)
print(f"{out}: {len(data)} bytes, sha256 {got}")
