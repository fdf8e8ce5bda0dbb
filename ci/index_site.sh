# index_site.sh: the PEP 503/691 index of the wheels that exist, one sub-index per variant.
if compgen -G "$DIST/*.whl" >/dev/null; then
  cuwheel index "$DIST" --out site
else
  echo "::error::no wheel was built"
fi
