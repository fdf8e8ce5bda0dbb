# pages_site.sh: the index of every release's wheels for GitHub Pages (SITE): each tag's wheel
# assets are downloaded here, never into the site, which links to where GitHub serves them, so
# each wheel is stored once (as a release asset) and every release stays listed.
mkdir -p all-wheels
gh release list --repo "$GITHUB_REPOSITORY" --limit 1000 --json tagName --jq '.[].tagName' \
  > release-tags.txt
while read -r tag; do
  case "$tag" in
  */* | .*) echo "::warning::tag $tag: not a directory name, its wheels are not listed"; continue ;;
  esac
  if gh release view "$tag" --repo "$GITHUB_REPOSITORY" --json assets \
      --jq '.assets[].name' | grep -q '\.whl$'; then
    gh release download "$tag" --repo "$GITHUB_REPOSITORY" --pattern '*.whl' \
      --dir "all-wheels/$tag"
  fi
done < release-tags.txt
cuwheel index all-wheels --out "$SITE" \
  --links "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/releases/download"
