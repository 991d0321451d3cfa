//! `relay radar ...`: the server PC's Dispatcher Radar session. `sign-in` reads the cookie
//! header of a signed-in CW Dashboard session (hidden prompt on a terminal, one line from
//! standard input otherwise; never an argument) and hands it to the running server over the
//! control socket, which stores it owner-only and reads the Radar with it at once; `sign-out`
//! forgets it. A server must be running: the Radar is read by its radar actor. (The desktop's
//! isolated sign-in window, which will capture the session without copying a cookie, is not
//! built yet.)

use clap::Subcommand;

use domain::control::{ControlOp, ControlReply, RadarOp, RadarReply, SecretText};

use crate::control_client::{deliver, Delivered};

type BoxError = Box<dyn std::error::Error>;

#[derive(Debug, Subcommand)]
pub enum RadarCommand {
    /// Store the Radar session (the `Cookie` header of a signed-in CW Dashboard session, read
    /// from a hidden prompt or standard input) and read the Radar with it.
    SignIn,
    /// Forget the Radar session; the Radar tab then shows that sign-in is needed.
    SignOut,
}

pub fn run(data_dir: &std::path::Path, command: RadarCommand) -> Result<(), BoxError> {
    if !data_dir.is_dir() {
        return Err(format!("no data directory at {}", data_dir.display()).into());
    }
    let op = match command {
        RadarCommand::SignIn => {
            let cookie = crate::secret_input::read_secret("Radar session cookie header: ")?;
            RadarOp::SignIn { cookie: SecretText(cookie) }
        }
        RadarCommand::SignOut => RadarOp::SignOut {},
    };
    let signing_in = matches!(op, RadarOp::SignIn { .. });
    let reply: RadarReply = match deliver(data_dir, ControlOp::Radar(op))? {
        Delivered::Reply(ControlReply::Radar(reply)) => reply,
        Delivered::Reply(_) => return Err("the server sent an unexpected reply".into()),
        Delivered::NotRunning => return Err("no Relay server is running on this data directory; start it first".into()),
    };
    match (signing_in, reply.sign_in_required, reply.error) {
        (false, _, _) => println!("Radar session removed."),
        (true, false, None) => println!("Radar session stored; the Radar reads {:?}.", reply.color),
        (true, true, _) => println!("Radar session stored, but the CW Dashboard still asks for sign-in."),
        (true, false, Some(error)) => println!("Radar session stored; the last read failed: {error}"),
    }
    Ok(())
}
