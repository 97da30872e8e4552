//! Sending a page to the panel: one full refresh through epd-waveshare's `epd2in13bc`
//! driver, then deep sleep, on any embedded-hal 1.0 SPI device, pins and delay.
//!
//! The driver ignores GPIO errors and would wait for BUSY forever, so the pins are wrapped:
//! the first GPIO error is reported after the refresh, and a BUSY line still asserted after
//! [`BUSY_TIMEOUT_S`] seconds is treated as released and reported as
//! [`DeviceError::BusyTimeout`]. The wrappers pass every call through unchanged.

mod watch;

#[cfg(all(feature = "linux", target_os = "linux"))]
mod linux;

use std::convert::Infallible;
use std::path::PathBuf;
use std::time::Duration;

use embedded_hal::delay::DelayNs;
use embedded_hal::digital::{InputPin, OutputPin};
use embedded_hal::spi::SpiDevice;
use epd_waveshare::epd2in13bc::Epd2in13bc;
use epd_waveshare::prelude::{WaveshareDisplay, WaveshareThreeColorDisplay};

use crate::error::DeviceError;
use crate::frame::Frame;

use self::watch::{Faults, WatchedBusy, WatchedOutput};

/// Microseconds between two BUSY polls (the driver's own default).
pub const BUSY_POLL_US: u32 = 10_000;

/// Seconds BUSY may stay asserted in one wait; a full refresh takes 15–30 s.
pub const BUSY_TIMEOUT_S: u32 = 90;

/// Full refresh of `frame`, then deep sleep: reset, booster soft start, power on, panel
/// setting, VCOM/data interval, resolution, VCM DC, black plane (0x10), colour plane (0x13),
/// display refresh (0x12), border floating, power off, deep sleep. Pins are taken by value;
/// pass `&mut pin` to keep them.
pub fn refresh<SPI, BUSY, DC, RST, DELAY>(
    spi: &mut SPI,
    busy: BUSY,
    dc: DC,
    rst: RST,
    delay: &mut DELAY,
    frame: &Frame,
) -> Result<(), DeviceError>
where
    SPI: SpiDevice,
    BUSY: InputPin,
    DC: OutputPin,
    RST: OutputPin,
    DELAY: DelayNs,
{
    let faults = Faults::default();
    let busy = WatchedBusy::new(busy, &faults, BUSY_TIMEOUT_S * (1_000_000 / BUSY_POLL_US));
    let dc = WatchedOutput::new(dc, "DC", &faults);
    let rst = WatchedOutput::new(rst, "RST", &faults);
    drive(spi, busy, dc, rst, delay, frame).map_err(|e| DeviceError::Spi {
        message: format!("{e:?}"),
    })?;
    faults.into_result(BUSY_TIMEOUT_S)
}

fn drive<SPI, BUSY, DC, RST, DELAY>(
    spi: &mut SPI,
    busy: BUSY,
    dc: DC,
    rst: RST,
    delay: &mut DELAY,
    frame: &Frame,
) -> Result<(), SPI::Error>
where
    SPI: SpiDevice,
    BUSY: InputPin,
    DC: OutputPin,
    RST: OutputPin,
    DELAY: DelayNs,
{
    let mut epd = Epd2in13bc::new(spi, busy, dc, rst, delay, Some(BUSY_POLL_US))?;
    epd.update_color_frame(spi, delay, frame.black(), frame.colour())?;
    epd.display_frame(spi, delay)?;
    epd.sleep(spi, delay)
}

/// Where the panel is wired on a Linux board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanelConfig {
    /// The spidev device whose chip select the panel uses, e.g. `/dev/spidev0.0`.
    pub spi: PathBuf,
    /// The GPIO character device holding the lines below, e.g. `/dev/gpiochip0`.
    pub gpiochip: PathBuf,
    /// Line offset of BUSY (input, low while the panel works).
    pub busy: u32,
    /// Line offset of DC (output, low = command, high = data).
    pub dc: u32,
    /// Line offset of RST (output, low resets).
    pub rst: u32,
}

impl Default for PanelConfig {
    /// The Waveshare HAT on a Raspberry Pi: CE0, BUSY = GPIO 24, DC = 25, RST = 17.
    fn default() -> Self {
        PanelConfig {
            spi: PathBuf::from("/dev/spidev0.0"),
            gpiochip: PathBuf::from("/dev/gpiochip0"),
            busy: 24,
            dc: 25,
            rst: 17,
        }
    }
}

/// Picks page `page` (1-based) for `--page N`.
pub fn select_page(frames: &[Frame], page: usize) -> Result<&Frame, DeviceError> {
    page.checked_sub(1)
        .and_then(|i| frames.get(i))
        .ok_or(DeviceError::NoSuchPage {
            page,
            pages: frames.len(),
        })
}

/// Shows one page on a real panel: opens the devices, refreshes, puts the panel to deep
/// sleep and releases the devices.
pub fn show_on_panel(config: &PanelConfig, frame: &Frame) -> Result<(), DeviceError> {
    #[cfg(all(feature = "linux", target_os = "linux"))]
    {
        linux::show(config, frame)
    }
    #[cfg(not(all(feature = "linux", target_os = "linux")))]
    {
        let _ = (config, frame);
        Err(DeviceError::PanelUnsupported)
    }
}

/// Shows the pages in turn, `interval` apart, starting with the first, until an error.
pub fn cycle_pages(
    config: &PanelConfig,
    frames: &[Frame],
    interval: Duration,
) -> Result<Infallible, DeviceError> {
    select_page(frames, 1)?;
    loop {
        for frame in frames {
            show_on_panel(config, frame)?;
            std::thread::sleep(interval);
        }
    }
}

/// Shows the first page, then the next one each time the button on GPIO line `button`
/// (same chip as the panel, active low: wire it to ground with a pull-up) is pressed.
/// Presses during a refresh are ignored.
pub fn button_pages(
    config: &PanelConfig,
    frames: &[Frame],
    button: u32,
) -> Result<Infallible, DeviceError> {
    select_page(frames, 1)?;
    #[cfg(all(feature = "linux", target_os = "linux"))]
    {
        linux::button_loop(config, frames, button)
    }
    #[cfg(not(all(feature = "linux", target_os = "linux")))]
    {
        let _ = (config, button);
        Err(DeviceError::PanelUnsupported)
    }
}
