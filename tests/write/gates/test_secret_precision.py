"""The scanner's measured misses and false alarms (issue: the write path, hardened): each
kind that slipped through is caught, and each benign look-alike passes."""

from __future__ import annotations

import pytest

from salience.write.gates.secrets import first_secret, scan

KEY_BODY = (
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n"
    "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n"
)

MISSED = {
    "password in URL, empty user name": "connect with redis://:Zk9r2LqW7vTx@cache.internal:6379/0",
    "DSN with a key": (
        "SENTRY_DSN is https://7f3e9a1c4b2d8e6f0a5c3b1d9e7f2a4c@o412345.ingest.sentry.io/5512345"
    ),
    "32 hex near 'token'": "the PagerDuty auth token is 4f8a2c9e1b7d3f6a0c5e8b2d4a9f1c7e, keep it",
    "32 hex near 'api key'": "Datadog api key: 9c1e4b7a2f8d3e6c0b5a9d2f4e7c1a8b",
    "private key with a body": f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY}-----END PRIVATE KEY-----",
}

BENIGN = {
    "SSH public key": (
        "add this to authorized_keys: ssh-ed25519 "
        "AAAAC3NzaC1lZDI1NTE5AAAAIGbRSb8Zk2Jm2y7vYq0YwKx7Xq0Jq3h2mX5Yk9bQz3Lp alice@laptop"
    ),
    "SSH RSA public key": (
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7VJTUt9Us8cKjMzEfYyjiWA4R4M2bS1GB4t7NXp98C3SC6dVM "
        "bob@build"
    ),
    "certificate body": f"-----BEGIN CERTIFICATE-----\n{KEY_BODY}-----END CERTIFICATE-----",
    "bare key header": "the file starts with -----BEGIN PRIVATE KEY----- and then the key",
    "share link": (
        "slides: https://drive.google.com/file/d/1aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV/view?usp=sharing"
    ),
    "file path": "the model lives in /models/7fG2kL9pQ4xZ1vB8nM3cR6tY5wE0aS/weights.bin",
    "book title": "I am reading The Book of Secrets: Unlocking the Hidden Dimensions of Your Life",
    "ansible option": "set ansible_ssh_private_key_file=/home/deploy/.ssh/id_ed25519 in inventory",
    "placeholder URL": "e.g. postgresql://user:password@localhost/db",
    "placeholder assignment": "in the example config, password=secret is only a placeholder",
    "template placeholder": "set INFLUXDB_PASSWORD=<influxdb_password> before starting",
    "code assigning a variable": "the constructor does this.password = password; nothing else",
    "changeme": "the default is admin_password=changeme, change it on first login",
    "env reference": "export API_KEY=${API_KEY} in the CI step",
}


@pytest.mark.parametrize("case", sorted(MISSED))
def test_each_measured_miss_is_caught(case: str) -> None:
    assert scan(MISSED[case]), case


@pytest.mark.parametrize("case", sorted(BENIGN))
def test_each_measured_false_alarm_passes(case: str) -> None:
    assert first_secret(BENIGN[case]) is None, (case, scan(BENIGN[case]))


def test_a_real_password_in_a_url_is_still_caught() -> None:
    assert scan("postgresql://app:Xq7!vR2pLm9s@db.internal:5432/prod")
    assert scan("password=Tr0ub4dor&3 in the .env file")
