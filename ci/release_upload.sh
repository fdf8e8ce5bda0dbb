# release_upload.sh: the published wheels as the tag's release assets (the release is made
# when the tag has none).
if ! gh release view "$GITHUB_REF_NAME" --repo "$GITHUB_REPOSITORY" >/dev/null 2>&1; then
  gh release create "$GITHUB_REF_NAME" --repo "$GITHUB_REPOSITORY" --verify-tag \
    --title "$GITHUB_REF_NAME" --notes ""
fi
gh release upload "$GITHUB_REF_NAME" release-assets/*.whl --clobber \
  --repo "$GITHUB_REPOSITORY"
