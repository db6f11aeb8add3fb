"""The web UI's server side: the page and its assets, login cookies, CSRF on writes."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.server.conftest import Keys


def test_the_page_and_assets_are_served_with_a_strict_policy(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert '<script src="/ui/assets/app.js"' in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert client.get("/ui/assets/app.js").status_code == 200
    assert client.get("/ui/assets/app.css").status_code == 200
    assert "innerHTML" not in client.get("/ui/assets/app.js").text  # text only, never markup


def test_local_mode_needs_no_login(client: TestClient) -> None:
    assert client.get("/ui/session").json() == {
        "authenticated": True,
        "local": True,
        "user": "default",
        "admin": False,
        "read_only": False,
    }


def test_login_keeps_the_key_in_a_strict_httponly_cookie(client: TestClient, keys: Keys) -> None:
    assert client.get("/ui/session").json()["authenticated"] is False
    assert client.post("/ui/login", json={"key": "sal_0000000000_" + "x" * 43}).status_code == 401
    login = client.post("/ui/login", json={"key": keys.alice})
    assert login.status_code == 200
    cookies = login.headers.get_list("set-cookie")
    key_cookie = next(c for c in cookies if c.startswith("salience_key="))
    assert "HttpOnly" in key_cookie
    assert "SameSite=strict" in key_cookie
    assert client.get("/ui/session").json()["user"] == "alice"
    assert client.get("/v1/memories").status_code == 200  # the cookie authenticates reads
    refused = client.post("/v1/memories", json={"content": "a write without the CSRF token"})
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "csrf")
    token = client.cookies["salience_csrf"]
    written = client.post(
        "/v1/memories",
        json={"content": "a write with the CSRF token"},
        headers={"X-CSRF-Token": token},
    )
    assert written.status_code == 201
    assert written.json()["record"]["user"] == "alice"
    client.post("/ui/logout", headers={"X-CSRF-Token": token})
    assert client.get("/ui/session").json()["authenticated"] is False
