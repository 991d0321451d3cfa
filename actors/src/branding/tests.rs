//! Branding actor tests: a logo round trip through the actor, a refused upload leaving the
//! previous logo untouched, alert-body images, the busy bound, and the control operation's
//! file path rules.

use super::*;
use crate::testkit::TestCtx;
use domain::problem::HttpProblem as _;

fn png(w: u32, h: u32) -> Vec<u8> {
    infra::images::testdata::png(w, h, 0)
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    let be = |r: std::ops::Range<usize>| u32::from_be_bytes(bytes[r].try_into().unwrap());
    (be(16..20), be(20..24))
}

#[actix_rt::test]
async fn a_logo_round_trips_and_a_refused_upload_keeps_the_previous_one() {
    let t = TestCtx::new();
    let dir = tempfile::tempdir().unwrap();
    let branding = start(&t.ctx(), dir.path().to_path_buf());
    assert_eq!(branding.send(GetLogo { kind: LogoKind::Company }).await.unwrap(), Ok(None));

    let info = branding.send(SetLogo { kind: LogoKind::Company, bytes: png(800, 100) }).await.unwrap().unwrap();
    assert_eq!((info.width, info.height), (400, 50));
    let stored = branding.send(GetLogo { kind: LogoKind::Company }).await.unwrap().unwrap().unwrap();
    assert_eq!(png_size(&stored), (400, 50));
    assert!(dir.path().join("store/assets/company-logo.png").is_file());

    let err = branding.send(SetLogo { kind: LogoKind::Company, bytes: b"GIF89a....".to_vec() }).await.unwrap();
    assert_eq!(err.unwrap_err().code(), "unsupported_format");
    let after = branding.send(GetLogo { kind: LogoKind::Company }).await.unwrap().unwrap().unwrap();
    assert_eq!(after, stored, "the previous logo is untouched");

    branding.send(RemoveLogo { kind: LogoKind::Company }).await.unwrap().unwrap();
    branding.send(RemoveLogo { kind: LogoKind::Company }).await.unwrap().unwrap();
    assert_eq!(branding.send(GetLogo { kind: LogoKind::Company }).await.unwrap(), Ok(None));
}

#[actix_rt::test]
async fn alert_body_images_are_narrowed_and_keep_png() {
    let t = TestCtx::new();
    let dir = tempfile::tempdir().unwrap();
    let branding = start(&t.ctx(), dir.path().to_path_buf());
    let out = branding.send(PrepareBodyImage { bytes: png(1032, 20) }).await.unwrap().unwrap();
    assert_eq!((out.mime(), png_size(&out.bytes)), ("image/png", (516, 10)));
    assert!(out.data_url().starts_with("data:image/png;base64,iVBORw0KGgo"));
    let err = branding.send(PrepareBodyImage { bytes: vec![0; 10] }).await.unwrap().unwrap_err();
    assert_eq!((err.status(), err.code()), (415, "unsupported_format"));
}

#[actix_rt::test]
async fn work_beyond_the_waiting_bound_is_refused_as_busy() {
    let t = TestCtx::new();
    let dir = tempfile::tempdir().unwrap();
    let config = BrandingConfig { max_waiting: 1 };
    let branding = BrandingActor::new(t.ctx(), config, dir.path().to_path_buf()).start();
    let first = branding.send(PrepareBodyImage { bytes: png(1500, 800) });
    let second = branding.send(PrepareBodyImage { bytes: png(10, 10) });
    let (first, second) = futures_join(first, second).await;
    assert!(first.unwrap().is_ok());
    let err = second.unwrap().unwrap_err();
    assert_eq!((err.code(), err.retry_after_secs()), ("busy", Some(1)));
    // Once the first finished, work is admitted again.
    assert!(branding.send(PrepareBodyImage { bytes: png(10, 10) }).await.unwrap().is_ok());
}

async fn futures_join<A: std::future::Future, B: std::future::Future>(a: A, b: B) -> (A::Output, B::Output) {
    tokio::join!(a, b)
}

#[actix_rt::test]
async fn set_logo_over_the_control_socket_reads_an_absolute_bounded_file() {
    let t = TestCtx::new();
    let dir = tempfile::tempdir().unwrap();
    let branding = start(&t.ctx(), dir.path().join("data"));
    let file = dir.path().join("logo.png");
    std::fs::write(&file, png(300, 300)).unwrap();
    let op = BrandingOp::SetLogo { kind: LogoKind::Footer, path: file.display().to_string() };
    let reply = run_op(&branding, op).await.unwrap();
    assert!(matches!(reply, BrandingReply::LogoSet { logo: LogoKind::Footer, width: 300, height: 300, .. }));

    let relative = BrandingOp::SetLogo { kind: LogoKind::Footer, path: "logo.png".into() };
    assert_eq!(run_op(&branding, relative).await.unwrap_err().code(), "invalid_input");
    std::fs::write(&file, vec![0u8; MAX_LOGO_INPUT_BYTES + 1]).unwrap();
    let big = BrandingOp::SetLogo { kind: LogoKind::Footer, path: file.display().to_string() };
    let err = run_op(&branding, big).await.unwrap_err();
    assert_eq!(err.to_string(), "Image must be under 2 MB");
    let control = domain::control::ControlError::from(err);
    assert_eq!(control.message, "Image must be under 2 MB (too_large)");
    let removed = run_op(&branding, BrandingOp::RemoveLogo { kind: LogoKind::Footer }).await.unwrap();
    assert_eq!(removed, BrandingReply::LogoRemoved { logo: LogoKind::Footer });
}
