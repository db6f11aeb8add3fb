import pytest

from salience.write.entities import MAX_ENTITIES, extract_entities


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The TerminalHost uses MemoryService for storage", {"TerminalHost", "MemoryService"}),
        ("Fix the CS8602 null reference warning and HTTP 404 error", {"CS8602", "HTTP 404"}),
        (
            "Set ASPNETCORE_ENVIRONMENT to Development and check NODE_ENV",
            {"ASPNETCORE_ENVIRONMENT", "NODE_ENV"},
        ),
        ("Use Microsoft.Extensions.Hosting for service hosting", {"Microsoft.Extensions.Hosting"}),
        ("Edit src/auth/handler.ts then restart", {"src/auth/handler.ts"}),
        ("Logs are in /var/log/nginx/error.log", {"/var/log/nginx/error.log"}),
        (r"Open C:\Users\dev\app\Program.cs", {r"C:\Users\dev\app\Program.cs"}),
        ("Call handleAuth() before rendering", {"handleAuth()"}),
        ("npm install @prisma/client and pip install httpx", {"@prisma/client", "httpx"}),
        ("We prefer httpx over requests", {"httpx", "requests"}),
        (
            "See https://docs.example.com/a/b.html for details",
            {"https://docs.example.com/a/b.html"},
        ),
        ("The API listens on :8080 and Postgres on port 5432", {"port 8080", "port 5432"}),
        ("The worker died with ECONNREFUSED", {"ECONNREFUSED"}),
    ],
)
def test_reference_and_kinds(text: str, expected: set[str]) -> None:
    assert expected <= set(extract_entities(text))


def test_a_name_repeated_is_one_entity_case_insensitively() -> None:
    assert extract_entities("UserService calls userservice and UserService") == ("UserService",)


def test_times_are_not_ports() -> None:
    assert extract_entities("We met at 10:30 and again at 14:45") == ()
    assert "port 8080" in extract_entities("It runs on 10.0.0.1:8080 now")


def test_blank_text_has_none() -> None:
    assert extract_entities("   \n") == ()


def test_a_path_inside_a_url_is_not_counted_twice() -> None:
    assert extract_entities("read https://example.com/docs/guide.html") == (
        "https://example.com/docs/guide.html",
    )


def test_at_most_twenty() -> None:
    text = " ".join(f"Service{chr(65 + i)}Handler" for i in range(26))
    assert len(extract_entities(text)) == MAX_ENTITIES
