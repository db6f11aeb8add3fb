"""Write the secret-scanner corpus under tests/data/ (deterministic; re-run to regenerate).

    python scripts/make_gate_corpus.py

Positives (secrets_positive.jsonl): fake values in the real formats of many kinds of secret,
each set in a realistic carrier (.env lines, YAML, JSON, shell, prose). Negatives
(secrets_negative.txt): real English prose and real code (docstrings and source lines of the
Python standard library), log lines, UUIDs, git SHAs, hex and SRI digests, file paths, URLs
without credentials and base64 data that is not a secret — things a scanner must not flag.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import inspect
import json
import random
import string
import uuid
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data"
rng = random.Random(20261122)
ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"


def rand(alphabet: str, n: int) -> str:
    # Guarantee mixed classes so "random" looks random, as real tokens do.
    mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if alphabet == HEX or not mixed or n < 8:
            return value
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def jwt() -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(
        json.dumps({"sub": rand(string.digits, 8), "iat": rng.randint(10**9, 2 * 10**9)}).encode()
    )
    return f"{header}.{payload}.{rand(B64URL, 43)}"


GENERATORS = {
    "AWS access key": lambda: "AKIA" + rand(string.ascii_uppercase + string.digits, 16),
    "AWS secret key": lambda: "aws_secret_access_key = " + rand(ALNUM + "/+", 40),
    "private key": lambda: (
        rng.choice(
            [
                "-----BEGIN RSA PRIVATE KEY-----",
                "-----BEGIN EC PRIVATE KEY-----",
                "-----BEGIN OPENSSH PRIVATE KEY-----",
                "-----BEGIN PRIVATE KEY-----",
                "-----BEGIN ENCRYPTED PRIVATE KEY-----",
                "-----BEGIN DSA PRIVATE KEY-----",
            ]
        )
        + "\n"
        + rand(ALNUM + "+/", 64)
    ),
    "GitHub token": lambda: rng.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) + rand(ALNUM, 36),
    "GitHub token ": lambda: "github_pat_" + rand(ALNUM, 22) + "_" + rand(ALNUM, 59),
    "GitLab token": lambda: "glpat-" + rand(ALNUM + "_-", 20),
    "Slack token": lambda: (
        rng.choice(["xoxb-", "xoxp-", "xoxa-", "xoxs-"])
        + rand(string.digits, 11)
        + "-"
        + rand(ALNUM, 24)
    ),
    "Slack token ": lambda: (
        "xapp-1-"
        + rand(string.ascii_uppercase + string.digits, 11)
        + "-"
        + rand(string.digits, 13)
        + "-"
        + rand(HEX, 64)
    ),
    "Slack webhook": lambda: (
        "https://hooks.slack.com/services/T"
        + rand(string.ascii_uppercase + string.digits, 10)
        + "/B"
        + rand(string.ascii_uppercase + string.digits, 10)
        + "/"
        + rand(ALNUM, 24)
    ),
    "Discord webhook": lambda: (
        f"https://discord.com/api/webhooks/{rand(string.digits, 18)}/{rand(B64URL, 68)}"
    ),
    "Telegram bot token": lambda: f"{rand(string.digits, 10)}:AA{rand(B64URL, 33)}",
    "Azure storage key": lambda: (
        f"DefaultEndpointsProtocol=https;AccountName={rand(string.ascii_lowercase, 10)};AccountKey={rand(ALNUM + '+/', 86)}==;EndpointSuffix=core.windows.net"
    ),
    "password in URL": lambda: (
        f"{rng.choice(['postgres', 'postgresql', 'mysql', 'mongodb+srv', 'redis', 'amqp', 'https'])}://{rng.choice(['app', 'admin', 'root', 'svc'])}:{rand(ALNUM, rng.randint(8, 16))}@{rng.choice(['db.internal', '10.0.3.7', 'cluster0.example.net'])}:{rng.choice([5432, 3306, 27017, 6379, 5672, 443])}/main"
    ),
    "password in connection string": lambda: (
        f"Server={rng.choice(['localhost', 'sql01'])};Database=app;User Id=sa;Password={rand(ALNUM + '!@#', 12)};"
    ),
    "JWT": jwt,
    "OpenAI API key": lambda: rng.choice(["sk-", "sk-proj-"]) + rand(ALNUM, 48),
    "Anthropic API key": lambda: "sk-ant-api03-" + rand(B64URL, 93) + "AA",
    "Stripe secret key": lambda: rng.choice(["sk_live_", "sk_test_", "rk_live_"]) + rand(ALNUM, 24),
    "npm token": lambda: "npm_" + rand(ALNUM, 36),
    "PyPI token": lambda: "pypi-AgEIcHlwaS5vcmc" + rand(B64URL, 60),
    "Docker Hub token": lambda: "dckr_pat_" + rand(B64URL, 27),
    "Google API key": lambda: "AIza" + rand(B64URL, 35),
    "Google OAuth secret": lambda: "GOCSPX-" + rand(B64URL, 28),
    "GCP service account": lambda: json.dumps(
        {
            "type": "service_account",
            "project_id": "demo-" + rand(LOWER_ALNUM, 6),
            "private_key_id": rand(HEX, 40),
        }
    ),
    "Hugging Face token": lambda: "hf_" + rand(ALNUM, 34),
    "SendGrid key": lambda: "SG." + rand(B64URL, 22) + "." + rand(B64URL, 43),
    "Mailgun key": lambda: "key-" + rand(HEX, 32),
    "Twilio key": lambda: "SK" + rand(HEX, 32),
    "Shopify token": lambda: rng.choice(["shpat_", "shpss_"]) + rand(HEX, 32),
    "Square token": lambda: "sq0atp-" + rand(B64URL, 22),
    "DigitalOcean token": lambda: "dop_v1_" + rand(HEX, 64),
    "Atlassian token": lambda: "ATATT3xFfGF0" + rand(B64URL, 180),
    "Linear API key": lambda: "lin_api_" + rand(ALNUM, 40),
    "Notion token": lambda: "secret_" + rand(ALNUM, 43),
    "Groq API key": lambda: "gsk_" + rand(ALNUM, 52),
    "Replicate token": lambda: "r8_" + rand(ALNUM, 37),
    "Vault token": lambda: "hvs." + rand(B64URL, 24),
    "age secret key": lambda: "AGE-SECRET-KEY-1" + rand(string.ascii_uppercase + string.digits, 58),
    "authorization header": lambda: (
        rng.choice(["Authorization: Bearer ", "authorization: Basic "]) + rand(ALNUM + "+/", 32)
    ),
    "secret assignment": lambda: (
        rng.choice(
            ["DB_PASSWORD", "CLIENT_SECRET", "API_KEY", "SECRET_KEY", "auth_token", "JWT_SECRET"]
        )
        + rng.choice(["=", ": ", " = "])
        + rand(ALNUM, rng.randint(12, 24))
    ),
    "high-entropy string": lambda: rand(ALNUM, rng.randint(24, 48)),
}

CARRIERS = [
    "{s}",
    "export TOKEN_VALUE='{s}'",
    "Here is the key you asked for: {s}",
    'config:\n  credential: "{s}"\n  region: eu-west-1',
    '{{"credential": "{s}", "enabled": true}}',
    "I rotated it yesterday, the new one is {s} (don't share it)",
    "curl -H 'X-Api-Key: {s}' https://api.example.com/v1/items",
    "# .env\nLOG_LEVEL=debug\nVALUE={s}",
]


def positives() -> list[dict[str, str]]:
    rows = []
    for kind, make in GENERATORS.items():
        for i in range(5):
            carrier = CARRIERS[(i + len(kind)) % len(CARRIERS)]
            rows.append({"kind": kind.strip(), "text": carrier.format(s=make())})
    return rows


def prose_and_code() -> tuple[list[str], list[str]]:
    import collections
    import email
    import http.client
    import json as json_module
    import logging
    import pathlib
    import sqlite3
    import urllib.request
    import zipfile

    prose, code = [], []
    for module in (
        collections,
        email,
        http.client,
        json_module,
        logging,
        pathlib,
        sqlite3,
        urllib.request,
        zipfile,
        random,
        string,
        hashlib,
        base64,
        gzip,
        inspect,
        uuid,
    ):
        for _, obj in inspect.getmembers(module):
            doc = inspect.getdoc(obj) or ""
            for paragraph in doc.split("\n\n"):
                text = " ".join(paragraph.split())
                if 40 <= len(text) <= 400 and text[0].isalpha():
                    prose.append(text)
        try:
            source = inspect.getsource(module)
        except (OSError, TypeError):
            continue
        for line in source.splitlines():
            stripped = line.strip()
            if 20 <= len(stripped) <= 160 and not stripped.startswith("#"):
                code.append(stripped)
    rng.shuffle(prose)
    rng.shuffle(code)
    return sorted(set(prose))[:700], sorted(set(code))[:700]


def structured() -> list[str]:
    rows = []
    levels = ["INFO", "WARN", "ERROR", "DEBUG"]
    for _ in range(150):
        rows.append(
            f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)}Z "
            f"{rng.choice(levels)} [{rng.choice(['worker-3', 'api', 'scheduler'])}] request_id={uuid.UUID(int=rng.getrandbits(128))} "
            f"path=/v1/items/{rng.randint(1, 99999)} status={rng.choice([200, 201, 404, 500])} duration_ms={rng.randint(1, 900)}"
        )
    for _ in range(100):
        rows.append(
            f"trace id {uuid.UUID(int=rng.getrandbits(128))} for job {rng.randint(1, 10**6)}"
        )
    for _ in range(100):
        rows.append(
            f"commit {rand(HEX, 40)} Merge branch 'feature/{rand(string.ascii_lowercase, 6)}'"
        )
    for _ in range(60):
        digest = hashlib.sha256(rand(ALNUM, 12).encode())
        rows.append(
            f"sha256:{digest.hexdigest()}  dist/app-{rng.randint(1, 9)}.{rng.randint(0, 20)}.tar.gz"
        )
        rows.append(f"md5 {hashlib.md5(rand(ALNUM, 8).encode()).hexdigest()} checksum matches")
        sri = base64.b64encode(hashlib.sha512(rand(ALNUM, 8).encode()).digest()).decode()
        rows.append(f'"integrity": "sha512-{sri}"')
    for _ in range(100):
        parts = [
            rng.choice(["src", "lib", "app", "tests", "internal", "pkg", "node_modules", "docs"])
            for _ in range(rng.randint(2, 5))
        ]
        name = rng.choice(
            [
                "handler.ts",
                "UserService.java",
                "main.go",
                "config.yaml",
                "__init__.py",
                "index.tsx",
                "README.md",
            ]
        )
        prefix = rng.choice(["", "/", "./", "C:\\\\Users\\\\dev\\\\", "~/"])
        rows.append(f"edit {prefix}{'/'.join(parts)}/{name} then run the tests")
    for _ in range(100):
        rows.append(
            rng.choice(
                [
                    f"https://github.com/{rand(string.ascii_lowercase, 7)}/{rand(string.ascii_lowercase, 9)}/pull/{rng.randint(1, 9999)}",
                    f"https://docs.example.com/guide/{rand(string.ascii_lowercase, 8)}#section-{rng.randint(1, 9)}",
                    f"https://api.example.com/v2/orders/{rng.randint(10**5, 10**7)}?page={rng.randint(1, 9)}&sort=desc",
                    f"http://localhost:{rng.choice([3000, 5173, 8000, 8080])}/api/health",
                    f"https://user@example.com/{rand(string.ascii_lowercase, 5)}",
                ]
            )
        )
    texts = [
        "hello world, this is a test payload",
        "The quick brown fox jumps over the lazy dog",
        "user=alice&role=viewer&theme=dark",
        '{"ok": true, "count": 3}',
    ]
    for _ in range(60):
        raw = (rng.choice(texts) + " " + rand(string.ascii_lowercase + " ", 20)).encode()
        rows.append(f"payload: {base64.b64encode(raw).decode()}")
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
    for _ in range(40):
        blob = rng.choice([png, gzip.compress(rand(string.ascii_lowercase, 40).encode(), mtime=0)])
        rows.append(f"data:image/png;base64,{base64.b64encode(blob).decode()}")
    return rows


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    rows = positives()
    with (OUT / "secrets_positive.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    prose, code = prose_and_code()
    negatives = [" ".join(line.split()) for line in prose + code + structured()]
    (OUT / "secrets_negative.txt").write_text("\n".join(negatives) + "\n", encoding="utf-8")
    kinds = len({r["kind"] for r in rows})
    print(
        f"{len(rows)} positives ({kinds} kinds), {len(negatives)} negatives "
        f"({len(prose)} prose, {len(code)} code)"
    )


if __name__ == "__main__":
    main()
