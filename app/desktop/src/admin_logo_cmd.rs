//! Logos from the server PC's Settings (desktop server mode, main window): set or remove the
//! company or footer logo while an Owner or Administrator is signed in to the Administration
//! session. The privileged actor authorizes and audits the change (`Authorize`,
//! `branding.setLogo` / `branding.removeLogo`, capability `BrandingManage`), then the branding
//! actor runs the image pipeline and stores it; a refused image leaves the previous logo. The
//! image arrives base64-encoded and is bounded before it is decoded.

use actors::branding::{BrandingError, LogoInfo, RemoveLogo, SetLogo};
use actors::privileged::{Authorize, Caller, SessionKind};
use base64::Engine;
use domain::images::{LogoKind, MAX_LOGO_INPUT_BYTES};
use domain::roles::Capability;
use serde::Serialize;

use crate::admin_cmd::{self, AdminSession};
use crate::bridge::{Access, Bridge, BridgeError, Command};

pub const ADMIN_SET_LOGO: Command = Command::new("admin_set_logo", Access::MainOnly);
pub const ADMIN_REMOVE_LOGO: Command = Command::new("admin_remove_logo", Access::MainOnly);

/// What a stored logo became.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogoSet {
    pub width: u32,
    pub height: u32,
    pub bytes: usize,
}

impl From<LogoInfo> for LogoSet {
    fn from(info: LogoInfo) -> LogoSet {
        LogoSet { width: info.width, height: info.height, bytes: info.bytes }
    }
}

fn kind_of(raw: &str) -> Result<LogoKind, BridgeError> {
    LogoKind::parse(raw).ok_or_else(|| BridgeError::Invalid("the logo is company or footer".into()))
}

/// The image bytes, refused past the logo limit before decoding (base64 is 4/3 of the bytes).
fn decode_image(encoded: &str) -> Result<Vec<u8>, BridgeError> {
    let too_large = || BridgeError::Invalid("Image must be under 2 MB".into());
    if encoded.len() > MAX_LOGO_INPUT_BYTES.div_ceil(3) * 4 {
        return Err(too_large());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| BridgeError::Invalid("the image is not valid base64".into()))?;
    if bytes.len() > MAX_LOGO_INPUT_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

fn branding_refusal(e: BrandingError) -> BridgeError {
    match e {
        BrandingError::Busy | BrandingError::Unavailable | BrandingError::Internal => {
            BridgeError::Unavailable(e.to_string())
        }
        other => BridgeError::Rejected(other.to_string()),
    }
}

fn branding_of(bridge: &Bridge) -> Result<actix::Addr<actors::branding::BrandingActor>, BridgeError> {
    bridge
        .live_server()
        .and_then(|l| l.branding)
        .ok_or_else(|| BridgeError::Unavailable("logos are managed on the Relay server PC".into()))
}

/// The Administration session may take `action` on the `kind` logo.
async fn authorize(
    bridge: &Bridge,
    session: &AdminSession,
    action: &'static str,
    kind: LogoKind,
) -> Result<(), BridgeError> {
    let msg = |id| Authorize {
        caller: Caller::Session { family: SessionKind::Local, id },
        capability: Capability::BrandingManage,
        action,
        target: kind.as_str().to_string(),
        fresh_password: false,
    };
    admin_cmd::in_session(bridge, session, msg).await.map(drop)
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::caller;

    #[tauri::command]
    pub async fn admin_set_logo<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
        kind: String,
        image_base64: String,
    ) -> Result<LogoSet, BridgeError> {
        caller(ADMIN_SET_LOGO, &webview, &bridge)?;
        let kind = kind_of(&kind)?;
        let bytes = decode_image(&image_base64)?;
        let branding = branding_of(&bridge)?;
        authorize(&bridge, &session, "branding.setLogo", kind).await?;
        let info = branding.send(SetLogo { kind, bytes }).await.map_err(admin_cmd::stopped)?;
        info.map(LogoSet::from).map_err(branding_refusal)
    }

    #[tauri::command]
    pub async fn admin_remove_logo<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
        kind: String,
    ) -> Result<(), BridgeError> {
        caller(ADMIN_REMOVE_LOGO, &webview, &bridge)?;
        let kind = kind_of(&kind)?;
        let branding = branding_of(&bridge)?;
        authorize(&bridge, &session, "branding.removeLogo", kind).await?;
        let removed = branding.send(RemoveLogo { kind }).await.map_err(admin_cmd::stopped)?;
        removed.map_err(branding_refusal)
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_bounded_before_and_after_decoding() {
        let engine = base64::engine::general_purpose::STANDARD;
        assert_eq!(decode_image(&engine.encode([1u8, 2, 3])).unwrap(), vec![1, 2, 3]);
        let limit = engine.encode(vec![0u8; MAX_LOGO_INPUT_BYTES]);
        assert_eq!(decode_image(&limit).unwrap().len(), MAX_LOGO_INPUT_BYTES);
        let over = engine.encode(vec![0u8; MAX_LOGO_INPUT_BYTES + 1]);
        assert_eq!(decode_image(&over), Err(BridgeError::Invalid("Image must be under 2 MB".into())));
        assert!(matches!(decode_image("not base64!"), Err(BridgeError::Invalid(_))));
        assert!(kind_of("company").is_ok() && kind_of("footer").is_ok());
        assert!(kind_of("../company").is_err());
    }

    #[test]
    fn image_refusals_keep_their_message() {
        let refused = branding_refusal(domain::images::ImageError::UnsupportedFormat.into());
        assert_eq!(refused, BridgeError::Rejected("Image must be a PNG, JPEG or WebP file".into()));
        assert!(matches!(branding_refusal(BrandingError::Busy), BridgeError::Unavailable(_)));
    }
}
