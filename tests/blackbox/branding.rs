//! Branding against the real `relay` binary: a logo set with `relay branding set-logo` is
//! served over HTTP to a signed-in client as a PNG inside 400x400; without a token the logo is
//! 401; a bad image is refused with its message and stable code and the previous logo is
//! untouched; `remove-logo` makes it 204 (none set; an unknown kind is 404); alert-body images come back as data URLs.

use std::io::Cursor;

use support::{client, relay_cli, Relay};

fn png(w: u32, h: u32) -> Vec<u8> {
    infra::images::testdata::png(w, h, 0)
}

async fn get_logo(relay: &Relay, token: Option<&str>, kind: &str) -> reqwest::Response {
    let mut req = client().get(relay.url(&format!("/api/relay/branding/logo/{kind}")));
    if let Some(token) = token {
        req = req.header("Authorization", token);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn a_logo_set_from_the_cli_is_served_to_signed_in_clients_only() {
    let relay = Relay::start();
    let token = relay.token().await;
    let files = tempfile::tempdir().unwrap();
    let good = files.path().join("logo.png");
    std::fs::write(&good, png(1200, 300)).unwrap();

    let (ok, out) = relay_cli("branding", &relay.data_dir, &["set-logo", "company", good.to_str().unwrap()], "");
    assert!(ok, "{out}");
    assert!(out.contains("company logo set: 400x100 PNG"), "{out}");

    let res = get_logo(&relay, Some(&token), "company").await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "image/png");
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    let served = res.bytes().await.unwrap().to_vec();
    let decoded = image::ImageReader::new(Cursor::new(&served)).with_guessed_format().unwrap();
    assert_eq!(decoded.format(), Some(image::ImageFormat::Png));
    let (w, h) = decoded.into_dimensions().unwrap();
    assert!(w <= 400 && h <= 400, "{w}x{h}");
    assert_eq!((w, h), (400, 100));

    assert_eq!(get_logo(&relay, None, "company").await.status(), 401);
    assert_eq!(get_logo(&relay, Some("Bearer nonsense"), "company").await.status(), 401);
    assert_eq!(get_logo(&relay, Some(&token), "footer").await.status(), 204, "none set");
    assert_eq!(get_logo(&relay, Some(&token), "header").await.status(), 404);

    // A GIF saved as .png: refused with a clear, typed error; the previous logo stays.
    let bad = files.path().join("fake.png");
    std::fs::write(&bad, b"GIF89a\x01\x00\x01\x00\x00\x00\x00;").unwrap();
    let (ok, out) = relay_cli("branding", &relay.data_dir, &["set-logo", "company", bad.to_str().unwrap()], "");
    assert!(!ok);
    assert!(out.contains("Image must be a PNG, JPEG or WebP file (unsupported_format)"), "{out}");
    let again = get_logo(&relay, Some(&token), "company").await.bytes().await.unwrap().to_vec();
    assert_eq!(again, served, "previous logo untouched");

    // A header declaring 20000x20000 is refused before decoding.
    std::fs::write(&bad, infra::images::testdata::png_declaring(20_000, 20_000)).unwrap();
    let (ok, out) = relay_cli("branding", &relay.data_dir, &["set-logo", "company", bad.to_str().unwrap()], "");
    assert!(!ok && out.contains("(dimensions_too_large)"), "{out}");

    let (ok, out) = relay_cli("branding", &relay.data_dir, &["remove-logo", "company"], "");
    assert!(ok && out.contains("company logo removed"), "{out}");
    assert_eq!(get_logo(&relay, Some(&token), "company").await.status(), 204);
    assert!(relay.output().contains("branding.setLogo"), "operations are logged by name");
}

#[tokio::test]
async fn alert_body_images_come_back_as_data_urls() {
    let relay = Relay::start();
    let token = relay.token().await;
    let url = relay.url("/api/relay/images/alert-body");
    let res = client().post(&url).header("Authorization", &token).body(png(1032, 40)).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.unwrap();
    assert!(body["dataUrl"].as_str().unwrap().starts_with("data:image/png;base64,"), "{body}");

    let res = client().post(&url).header("Authorization", &token).body("plain text").send().await.unwrap();
    assert_eq!(res.status(), 415);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["data"]["code"], "unsupported_format");
    assert_eq!(body["message"], "Image must be a PNG, JPEG or WebP file");

    let res = client().post(&url).body(png(10, 10)).send().await.unwrap();
    assert_eq!(res.status(), 401);
    let big = vec![0u8; 5 * 1024 * 1024 + 1];
    let res = client().post(&url).header("Authorization", &token).body(big).send().await.unwrap();
    assert_eq!(res.status(), 413);
}
