# pages_size.sh: refuses a site (SITE) larger than GitHub Pages publishes (PAGES_LIMIT bytes:
# "Published GitHub Pages sites may be no larger than 1 GB"), before anything is deployed.
size=$(du -sb "$SITE" | cut -f1)
echo "the site is $size bytes (GitHub Pages' limit: $PAGES_LIMIT)"
if [ "$size" -gt "$PAGES_LIMIT" ]; then
  echo "::error::the index site is $size bytes; GitHub Pages publishes at most $PAGES_LIMIT" \
    "bytes: nothing was deployed (the wheels belong in release assets: publish = [\"release\"," \
    "\"pages\"] links to them)"
  exit 1
fi
