# find_python.sh: a Python for the job's own scripts, as $py (the manylinux images have
# no python3 on PATH).
for py in python3.12 python3 /opt/python/cp312-cp312/bin/python3; do
  if "$py" -c 'import sys' >/dev/null 2>&1; then break; fi
done
